package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dustin/go-humanize"

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

// progressPrinter writes a compile's progress to w. On a terminal, a bar
// redrawn over one line as the phase goes; elsewhere (a log), a line every
// few seconds. Either way a line when each phase ends, with what it did and
// how long it took, and the total when the compile ends.
type progressPrinter struct {
	w        io.Writer
	terminal bool
	begun    time.Time // the compile
	start    time.Time // the phase
	last     time.Time // the last line written or drawn
	phase    string
	drawn    bool     // a bar is on the terminal's line
	took     []string // "phase time" of each phase ended
}

// progressBarEvery and progressLineEvery are how often the bar is redrawn
// and a line written to a log, at most.
const (
	progressBarEvery  = 100 * time.Millisecond
	progressLineEvery = 5 * time.Second
)

// report is a table.CompileOptions.Progress.
func (p *progressPrinter) report(pr table.CompileProgress) {
	now := time.Now()
	if p.begun.IsZero() {
		p.begun = now
	}
	if pr.Phase != p.phase {
		p.phase, p.start, p.last = pr.Phase, now, now
	}
	elapsed := now.Sub(p.start)
	if pr.End {
		p.clear()
		p.took = append(p.took, pr.Phase+" "+roundDuration(elapsed))
		line := fmt.Sprintf("compile: %s: %s in %s", pr.Phase, progressAmount(pr.Phase, pr.Done), roundDuration(elapsed))
		if rate := progressRate(pr.Phase, pr.Done, elapsed); rate != "" {
			line += " (" + rate + ")"
		}
		if pr.Phase == "read" {
			line += ", " + humanize.Comma(pr.Entries) + " entries"
		}
		fmt.Fprintln(p.w, line)
		return
	}
	every := progressLineEvery
	if p.terminal {
		every = progressBarEvery
	}
	if now.Sub(p.last) < every && !(p.terminal && !p.drawn) {
		return
	}
	p.last = now
	// A total of 0 is one not known (a file whose size the system does
	// not tell): then no "of", no percentage and no bar.
	line := fmt.Sprintf("compile: %s: %s", pr.Phase, progressAmount(pr.Phase, pr.Done))
	if pr.Total > 0 {
		line += fmt.Sprintf(" of %s (%d%%)", progressAmount(pr.Phase, pr.Total), pr.Done*100/pr.Total)
	}
	if rate := progressRate(pr.Phase, pr.Done, elapsed); rate != "" {
		line += ", " + rate
	}
	if pr.Phase == "read" {
		line += ", " + humanize.Comma(pr.Entries) + " entries"
	}
	if !p.terminal {
		fmt.Fprintln(p.w, line)
		return
	}
	if pr.Total > 0 {
		line = progressBar(pr.Done, pr.Total) + " " + line
	}
	fmt.Fprintf(p.w, "\r\033[K%s", line)
	p.drawn = true
}

// done ends the progress: the total time of a compile that succeeded,
// and an end to the terminal's line either way.
func (p *progressPrinter) done(err error) {
	p.clear()
	if err == nil && !p.begun.IsZero() {
		fmt.Fprintf(p.w, "compile: done in %s (%s)\n", roundDuration(time.Since(p.begun)), strings.Join(p.took, ", "))
	}
}

// clear erases the bar from the terminal's line.
func (p *progressPrinter) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}

// progressBar draws done of total as a bar 20 characters wide.
func progressBar(done, total int64) string {
	const width = 20
	filled := 0
	if total > 0 {
		filled = int(min(done, total) * width / total)
	}
	return "[" + strings.Repeat("#", filled) + strings.Repeat(".", width-filled) + "]"
}

// progressAmount says n in the unit of phase's progress.
func progressAmount(phase string, n int64) string {
	switch phase {
	case "read", "write":
		return humanize.IBytes(uint64(n))
	case "index":
		return humanize.Comma(n) + " slots"
	}
	return humanize.Comma(n) + " entries"
}

// progressRate is n done in elapsed, per second, or "" when too soon to
// tell.
func progressRate(phase string, n int64, elapsed time.Duration) string {
	if n <= 0 || elapsed < 10*time.Millisecond {
		return ""
	}
	per := int64(float64(n) / elapsed.Seconds())
	switch phase {
	case "read", "write":
		return humanize.IBytes(uint64(per)) + "/s"
	}
	return humanize.Comma(per) + "/s"
}

// roundDuration rounds d for a person to read: milliseconds under a
// second, tenths of a second under a minute, whole seconds above.
func roundDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
