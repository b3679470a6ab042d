package cli

import (
	"context"
	"encoding/csv"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/caddy-ark/caddy-ark/stats"
	"github.com/spf13/cobra"
)

// statsCommand builds `caddy ark stats`.
func statsCommand() *cobra.Command {
	cmd := apiCommand("stats --api <url> [--days <n> | --from <day> [--to <day>]] [--json | --csv]",
		"Prints the resolution statistics of the site, through the API", `
Prints the site's resolution statistics (the stats subdirective of ark) as
GET <api>/stats answers them, for the shoulders and identifiers the key may
read: the requests of the period and how many found nothing, then a table
of the requests of each day by outcome (redirect, not_found, ...), a table
of the requests of each shoulder by outcome, the identifiers requested most
and the names requested that resolved to nothing, with their counts.

The period is --days (the last n days, today in UTC included, 1 to 800),
or --from and --to (days such as 2026-01-31, both included; --to defaults
to today, --from to 29 days before --to); by default, the last 30 days.
With --json, prints the API's JSON as it is; with --csv, the two tables as
CSV with a header line: by (day or shoulder), value (the day, or the
shoulder, "" for requests naming none of the site's), total, and a column
for each outcome of the period.
`, cobra.NoArgs, func(cmd *cobra.Command, c *apiClient, _ []string) error {
			asJSON, _ := cmd.Flags().GetBool("json")
			asCSV, _ := cmd.Flags().GetBool("csv")
			if asJSON && asCSV {
				return errors.New("give --json or --csv, not both")
			}
			q := flagQuery(cmd, "from", "to")
			if cmd.Flags().Changed("days") {
				days, _ := cmd.Flags().GetInt("days")
				q.Set("days", strconv.Itoa(days))
			}
			path := "/stats"
			if len(q) > 0 {
				path += "?" + q.Encode()
			}
			if asJSON {
				return c.call(cmd.Context(), http.MethodGet, path, nil, cmd.OutOrStdout())
			}
			return c.printStats(cmd.Context(), path, asCSV, cmd.OutOrStdout())
		})
	cmd.Flags().Int("days", 0, "The last n days, today (UTC) included: 1 to 800 (default: 30)")
	cmd.Flags().String("from", "", "The first day, such as 2026-01-01 (default: 29 days before --to)")
	cmd.Flags().String("to", "", "The last day, such as 2026-01-31 (default: today, UTC)")
	cmd.Flags().Bool("json", false, "Print the API's JSON as it is")
	cmd.Flags().Bool("csv", false, "Print the requests by day and by shoulder and outcome as CSV with a header line")
	return cmd
}

// printStats reads the report of GET path and prints it as text, or its
// tables as CSV.
func (c *apiClient) printStats(ctx context.Context, path string, asCSV bool, w io.Writer) error {
	var r stats.Report
	if err := c.call(ctx, http.MethodGet, path, nil, &r); err != nil {
		return err
	}
	if asCSV {
		return writeStatsCSV(&r, w)
	}
	return writeStatsText(&r, w)
}

// writeStatsCSV writes the report's requests by day and by shoulder, and
// by outcome, as CSV.
func writeStatsCSV(r *stats.Report, w io.Writer) error {
	outcomes := reportOutcomes(r)
	out := csv.NewWriter(w)
	_ = out.Write(append([]string{"by", "value", "total"}, outcomes...))
	for _, d := range r.Days {
		_ = out.Write(countsRow([]string{"day", d.Day}, d.Total, d.Outcomes, outcomes))
	}
	for _, s := range r.Shoulders {
		_ = out.Write(countsRow([]string{"shoulder", s.Shoulder}, s.Total, s.Outcomes, outcomes))
	}
	out.Flush()
	return out.Error()
}
