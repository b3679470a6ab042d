package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/stats"
)

// noShoulder is how the text report names the shoulder "": requests for
// none of the site's identifiers (invalid, other NAANs', unknown URNs).
const noShoulder = "(none of the site's)"

// writeStatsText writes the report for a reader: a summary, the requests
// of each day (a run of days without any as one line) and of each shoulder
// by outcome in aligned columns, and the
// most requested identifiers and names that found nothing.
func writeStatsText(r *stats.Report, w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Requests from %s to %s: %d, of which %d found nothing\n", terminalSafe(r.From), terminalSafe(r.To), r.Total, r.Outcomes[resolve.OutcomeNotFound.String()])
	if r.Unwritten > 0 {
		fmt.Fprintf(&b, "%d of them counted by this server and not written to the store yet\n", r.Unwritten)
	}
	if r.Dropped > 0 {
		fmt.Fprintf(&b, "%d requests not counted since this server started: the counting fell behind\n", r.Dropped)
	}
	outcomes := reportOutcomes(r)

	b.WriteString("\nBy day\n")
	header := []string{"total"}
	for _, name := range outcomes {
		header = append(header, terminalSafe(name))
	}
	days := [][]string{append([]string{"day"}, header...)}
	for i := 0; i < len(r.Days); i++ {
		d := r.Days[i]
		day := terminalSafe(d.Day)
		if d.Total == 0 {
			// A run of days without requests is one line.
			last := i
			for last+1 < len(r.Days) && r.Days[last+1].Total == 0 {
				last++
			}
			if last > i {
				day += " to " + terminalSafe(r.Days[last].Day)
				i = last
			}
		}
		days = append(days, countsRow([]string{day}, d.Total, d.Outcomes, outcomes))
	}
	writeAligned(&b, days)

	b.WriteString("\nBy shoulder\n")
	shoulders := [][]string{append([]string{"shoulder"}, header...)}
	for _, s := range r.Shoulders {
		name := terminalSafe(s.Shoulder)
		if s.Shoulder == "" {
			name = noShoulder
		}
		shoulders = append(shoulders, countsRow([]string{name}, s.Total, s.Outcomes, outcomes))
	}
	if len(shoulders) == 1 {
		b.WriteString("(none)\n")
	} else {
		writeAligned(&b, shoulders)
	}

	writeIDCounts(&b, "Most requested", r.Top)
	writeIDCounts(&b, "Requested, but found nothing", r.NotFound)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeIDCounts writes a list of identifiers under its title, a count and
// an identifier a line, the counts aligned; "(none)" for an empty list.
func writeIDCounts(b *strings.Builder, title string, list []stats.IDCount) {
	fmt.Fprintf(b, "\n%s\n", title)
	if len(list) == 0 {
		b.WriteString("(none)\n")
		return
	}
	width := 0
	for _, c := range list {
		width = max(width, len(strconv.FormatUint(c.Count, 10)))
	}
	for _, c := range list {
		fmt.Fprintf(b, "%*d  %s\n", width, c.Count, terminalSafe(c.ID))
	}
}

// reportOutcomes returns the outcomes the report counts any request of, in
// the order of resolve.Outcome, then any other in name order.
func reportOutcomes(r *stats.Report) []string {
	var out []string
	for o := range resolve.NumOutcomes {
		if name := resolve.Outcome(o).String(); r.Outcomes[name] > 0 {
			out = append(out, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(r.Outcomes)) {
		if !slices.Contains(out, name) && r.Outcomes[name] > 0 {
			out = append(out, name)
		}
	}
	return out
}

// countsRow is a row of a table: head, then total and the count of each
// of outcomes.
func countsRow(head []string, total uint64, counts map[string]uint64, outcomes []string) []string {
	row := append(head, strconv.FormatUint(total, 10))
	for _, name := range outcomes {
		row = append(row, strconv.FormatUint(counts[name], 10))
	}
	return row
}

// writeAligned writes rows as a table: the first column aligned left, the
// others (numbers) right, two spaces between columns.
func writeAligned(b *strings.Builder, rows [][]string) {
	var widths []int
	for _, row := range rows {
		for i, cell := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	for _, row := range rows {
		for i, cell := range row {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
			if i == 0 {
				b.WriteString(cell + pad)
			} else {
				b.WriteString("  " + pad + cell)
			}
		}
		b.WriteString("\n")
	}
}
