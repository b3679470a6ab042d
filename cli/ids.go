package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"strconv"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/spf13/cobra"
)

// idsCommand builds `caddy ark ids`.
func idsCommand() *cobra.Command {
	cmd := apiCommand("ids --api <url> [--prefix <prefix>] [--q <text>] [--status bound|withdrawn|minted] [-n <count>] [--json]",
		"Lists and searches the identifiers of the API's store", `
Prints the identifiers of the API's store that the key may read, in
identifier order, one a line: the identifier, its status (0 for a name
minted and not bound yet, 410 for a withdrawn one) and its target. --prefix
keeps those under a NAAN, shoulder or URN namespace (ark:12345/x5); --q those
whose target or a metadata value holds the text, ignoring case; --status
those bound, withdrawn or minted. With --json, each line is the binding as
GET <api>/id/<id> gives it. It reads the answer a page at a time (GET
<api>/ids), until the end or -n identifiers.
`, cobra.NoArgs, func(cmd *cobra.Command, c *apiClient, _ []string) error {
			q := flagQuery(cmd, "prefix", "q", "status")
			n, _ := cmd.Flags().GetInt("n")
			asJSON, _ := cmd.Flags().GetBool("json")
			if n < 0 {
				return errors.New("-n: a count of identifiers, 0 for all")
			}
			return c.listIDs(cmd.Context(), q, n, asJSON, cmd.OutOrStdout())
		})
	cmd.Flags().String("prefix", "", "Only identifiers under this NAAN, shoulder or URN namespace, such as ark:12345/x5")
	cmd.Flags().String("q", "", "Only identifiers whose target or a metadata value holds this text, ignoring case")
	cmd.Flags().String("status", "", "Only identifiers bound, withdrawn or minted (not bound yet)")
	cmd.Flags().IntP("n", "n", 0, "Print at most this many identifiers (0: all)")
	cmd.Flags().Bool("json", false, "Print each binding as JSON, as the API gives it")
	return cmd
}

// changesCommand builds `caddy ark changes`.
func changesCommand() *cobra.Command {
	cmd := apiCommand("changes --api <url> [--since <seq|time>] [--prefix <prefix>] [--writer <name>] [-n <count>] [--json]",
		"Prints the recent changes of the API's store", `
Prints the changes of the identifiers the key may read, oldest first, one a
line: its sequence number, time, the key or person that made it, the
identifier, and its target before and after (- for none; a withdrawal shows 410 and its
reason). --since is the sequence number of the last change seen, or an RFC
3339 time (default: the last 24 hours); --prefix keeps the identifiers under
a NAAN, shoulder or URN namespace; --writer the changes of one key or
person (person:<name>). With --json, each line is the change as
the history of GET <api>/id/<id> shows it. It reads GET <api>/changes a
page at a time, until the end or -n changes.
`, cobra.NoArgs, func(cmd *cobra.Command, c *apiClient, _ []string) error {
			q := flagQuery(cmd, "since", "prefix", "writer")
			n, _ := cmd.Flags().GetInt("n")
			asJSON, _ := cmd.Flags().GetBool("json")
			if n < 0 {
				return errors.New("-n: a count of changes, 0 for all")
			}
			return c.listChanges(cmd.Context(), q, n, asJSON, cmd.OutOrStdout())
		})
	cmd.Flags().String("since", "", "After this sequence number, or from this RFC 3339 time (default: the last 24 hours)")
	cmd.Flags().String("prefix", "", "Only identifiers under this NAAN, shoulder or URN namespace, such as ark:12345/x5")
	cmd.Flags().String("writer", "", "Only the changes made by this key, or by this person (person:<name>)")
	cmd.Flags().IntP("n", "n", 0, "Print at most this many changes (0: all)")
	cmd.Flags().Bool("json", false, "Print each change as JSON, as the API gives it")
	return cmd
}

// flagQuery returns the query of the string flags names of cmd that are
// set to other than "", each under its flag's name.
func flagQuery(cmd *cobra.Command, names ...string) url.Values {
	q := url.Values{}
	for _, name := range names {
		if v, _ := cmd.Flags().GetString(name); v != "" {
			q.Set(name, v)
		}
	}
	return q
}

// listIDs prints the identifiers of GET ids?q, page after page, at most n
// of them (0 for all).
func (c *apiClient) listIDs(ctx context.Context, q url.Values, n int, asJSON bool, w io.Writer) error {
	return c.pages(ctx, "ids", "after", q, n, printLine(w, asJSON, "a binding", func(b *store.Binding) string {
		return fmt.Sprintf("%s %d %s", terminalSafe(b.Key), b.Status, terminalSafe(b.Target))
	}))
}

// listChanges prints the changes of GET changes?q, page after page, at
// most n of them (0 for all).
func (c *apiClient) listChanges(ctx context.Context, q url.Values, n int, asJSON bool, w io.Writer) error {
	return c.pages(ctx, "changes", "since", q, n, printLine(w, asJSON, "a change", func(ch *store.Change) string {
		return fmt.Sprintf("%d %s %s %s %s -> %s", ch.Seq, ch.Time.Format("2006-01-02T15:04:05Z07:00"), terminalSafe(ch.By), terminalSafe(ch.Key), shownAs(ch.Old), shownAs(ch.New))
	}))
}

// printLine returns what prints a line of the API's answer to w: as it
// is with asJSON, else as show puts the T it holds (what names a T in
// the error of a line that is not one).
func printLine[T any](w io.Writer, asJSON bool, what string, show func(*T) string) func(line []byte) error {
	return func(line []byte) error {
		if asJSON {
			_, err := fmt.Fprintf(w, "%s\n", line)
			return err
		}
		v := new(T)
		if err := json.Unmarshal(line, v); err != nil {
			return fmt.Errorf("the API's answer is not %s: %v", what, err)
		}
		_, err := fmt.Fprintln(w, show(v))
		return err
	}
}

// shownAs is a binding in a line of changes: its target, "410 <reason>"
// when withdrawn, "-" for none.
func shownAs(b *store.Binding) string {
	switch {
	case b == nil:
		return "-"
	case b.Status == http.StatusGone:
		return terminalSafe("410 " + b.Reason)
	case b.Target == "":
		return "(minted)"
	}
	return terminalSafe(b.Target)
}

// nextLink reads the value of param in a Link: <…>; rel="next" header.
var nextLink = regexp.MustCompile(`^<([^>]*)>; rel="next"$`)

// pages calls line with each line of the NDJSON answers of GET route?q,
// following the Links to the next pages, until the last page or n lines
// (0 for no limit).
func (c *apiClient) pages(ctx context.Context, route, param string, q url.Values, n int, line func([]byte) error) error {
	seen := 0
	for {
		page := maps.Clone(q)
		limit := 1000
		if n > 0 {
			limit = min(limit, n-seen)
		}
		page.Set("limit", strconv.Itoa(limit))
		path := "/" + route + "?" + page.Encode()
		var next string
		err := c.call(ctx, http.MethodGet, path, nil, func(resp *http.Response) error {
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(nil, 16<<20)
			for sc.Scan() {
				if len(sc.Bytes()) == 0 {
					continue
				}
				if err := line(sc.Bytes()); err != nil {
					return err
				}
				if seen++; n > 0 && seen == n {
					return nil
				}
			}
			if err := sc.Err(); err != nil {
				return err
			}
			if m := nextLink.FindStringSubmatch(resp.Header.Get("Link")); m != nil {
				if u, err := url.Parse(m[1]); err == nil {
					next = u.Query().Get(param)
				}
			}
			return nil
		})
		if err != nil || next == "" || n > 0 && seen >= n {
			return err
		}
		q = maps.Clone(q)
		q.Set(param, next)
	}
}
