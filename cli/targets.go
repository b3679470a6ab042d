package cli

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/targets"
	"github.com/spf13/cobra"
)

// targetsCommand builds `caddy ark targets`.
func targetsCommand() *cobra.Command {
	cmd := apiCommand("targets --api <url> [--status <state>] [--prefix <shoulder>] [--since <time>] [--csv] | targets --api <url> --check [--prefix <shoulder>]",
		"Prints what the checks of the targets found, through the API", `
Prints one line per identifier with a target, as GET <api>/targets answers:
the identifier, its target, the state the checks of the target found
(unchecked, ok, failing, broken, suspect or unverifiable), the last code
(an HTTP status such as 404, or what failed, such as timeout), the failed
checks in a row, when it was last checked and when its state began, and
where it ended after redirects when that is not the target. Lines are
NDJSON, or CSV with a header line with --csv. --status, --prefix and
--since (an RFC 3339 time: only targets whose state began then or after)
choose the lines; only identifiers the key may read are printed.

With --check, asks for the targets under --prefix (every identifier
without it) to be checked now instead, and prints how many identifiers
have them; the key must be allowed to write them.
`, cobra.NoArgs, func(cmd *cobra.Command, c *apiClient, _ []string) error {
			status, _ := cmd.Flags().GetString("status")
			prefix, _ := cmd.Flags().GetString("prefix")
			since, _ := cmd.Flags().GetString("since")
			asCSV, _ := cmd.Flags().GetBool("csv")
			check, _ := cmd.Flags().GetBool("check")
			if check {
				if status != "" || since != "" || asCSV {
					return errors.New("--check takes --prefix only")
				}
				return c.checkTargets(cmd.Context(), prefix, cmd.OutOrStdout())
			}
			q := url.Values{}
			for name, v := range map[string]string{"status": status, "prefix": prefix, "since": since} {
				if v != "" {
					q.Set(name, v)
				}
			}
			return c.targetReport(cmd.Context(), q, asCSV, cmd.OutOrStdout())
		})
	cmd.Flags().String("status", "", "Only targets in this state: unchecked, ok, failing, broken, suspect or unverifiable")
	cmd.Flags().String("prefix", "", "Only identifiers under this NAAN, shoulder or URN namespace, such as ark:12345/x5")
	cmd.Flags().String("since", "", "Only targets whose state began at this RFC 3339 time or after, such as 2026-01-31T00:00:00Z")
	cmd.Flags().Bool("csv", false, "Print CSV with a header line instead of NDJSON")
	cmd.Flags().Bool("check", false, "Check the targets under --prefix now instead of printing them")
	return cmd
}

// targetReport prints the API's report of the targets chosen by q, as it
// arrives: NDJSON as the API sends it, or CSV.
func (c *apiClient) targetReport(ctx context.Context, q url.Values, asCSV bool, w io.Writer) error {
	path := "/targets"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return c.call(ctx, http.MethodGet, path, nil, func(body io.Reader) error {
		sc := bufio.NewScanner(body)
		sc.Buffer(nil, 1<<20)
		var out *csv.Writer
		if asCSV {
			out = csv.NewWriter(w)
			_ = out.Write([]string{"id", "target", "state", "code", "failures", "checked", "since", "final"})
		}
		for sc.Scan() {
			if out == nil {
				if _, err := fmt.Fprintf(w, "%s\n", sc.Bytes()); err != nil {
					return err
				}
				continue
			}
			var l targets.Line
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				return fmt.Errorf("the report is not NDJSON: %w", err)
			}
			_ = out.Write([]string{l.ID, l.Target, string(l.State), l.Code, strconv.Itoa(l.Failures), csvTime(l.Checked), csvTime(l.Since), l.Final})
		}
		if out != nil {
			out.Flush()
			if err := out.Error(); err != nil {
				return err
			}
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("the report is incomplete: %w", err)
		}
		return nil
	})
}

// csvTime is t in RFC 3339, "" for none.
func csvTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.Format(time.RFC3339)
}

// checkTargets asks for the targets under prefix to be checked now.
func (c *apiClient) checkTargets(ctx context.Context, prefix string, w io.Writer) error {
	path := "/targets/check"
	if prefix != "" {
		path += "?prefix=" + url.QueryEscape(prefix)
	}
	var out api.CheckResult
	if err := c.call(ctx, http.MethodPost, path, nil, &out); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d identifiers: their targets are checked next\n", out.Identifiers)
	return err
}
