package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/caddy-ark/caddy-ark/table"
)

// compileAll compiles the JSON table files at paths into out with opts
// and writes what it did to w.
func compileAll(paths []string, out string, opts table.CompileOptions, w io.Writer) error {
	st, err := table.CompileWith(paths, out, opts)
	if err != nil {
		return err
	}
	per := 0.0
	if st.Distinct > 0 {
		per = float64(st.Size) / float64(st.Distinct)
	}
	fmt.Fprintf(w, "%s: %s from %d entries (%d duplicates dropped), %d bytes, %.1f bytes per identifier\n",
		out, count(st.Distinct, "identifier"), st.Entries, st.Entries-st.Distinct, st.Size, per)
	return nil
}

// progressPrinter writes a compile's progress to w at most once a second
// and when a phase begins: on a terminal, over one line; elsewhere, a line
// each time.
type progressPrinter struct {
	w        io.Writer
	terminal bool
	start    time.Time // of the phase
	last     time.Time // of the last line written
	phase    string
}

// report is a table.CompileOptions.Progress.
func (p *progressPrinter) report(pr table.CompileProgress) {
	now := time.Now()
	if pr.Phase != p.phase {
		if p.terminal && p.phase != "" {
			fmt.Fprintln(p.w)
		}
		p.phase, p.start = pr.Phase, now
	} else if now.Sub(p.last) < time.Second {
		return
	}
	p.last = now
	line := fmt.Sprintf("compile: %s: %d", pr.Phase, pr.Done)
	if pr.Total > 0 {
		line += fmt.Sprintf(" of %d", pr.Total)
	}
	unit := "entries"
	switch pr.Phase {
	case "index":
		unit = "slots"
	case "write":
		unit = "bytes"
	}
	line += " " + unit
	if s := now.Sub(p.start).Seconds(); s > 0 && pr.Done > 0 {
		line += fmt.Sprintf(", %.0f/s", float64(pr.Done)/s)
	}
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// done ends the line a terminal was writing on.
func (p *progressPrinter) done() {
	if p.terminal && p.phase != "" {
		fmt.Fprintln(p.w)
	}
}
