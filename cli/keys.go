package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddyserver/caddy/v2"
	"github.com/spf13/cobra"
)

// keysCommand builds `caddy ark keys`: the API keys kept in the store,
// made, listed and revoked through the API by an admin key.
func keysCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Makes, lists and revokes API keys kept in the store",
		Long: `
Manages the API keys kept in the site's store, besides those of the
configuration, through the API with an admin key: add makes one and prints
its secret, shown this once; list lists them; revoke ends one at once, on
every node sharing the store. docs/keys.md describes them.
`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(keysAddCommand(), keysListCommand(), keysRevokeCommand())
	return cmd
}

// keysAddCommand builds `caddy ark keys add`.
func keysAddCommand() *cobra.Command {
	cmd := apiCommand("add --api <url> --scope <scope>... [--label <text>] [--expires <when>] <name>",
		"Makes an API key in the store and prints its secret", `
Makes a key called <name> with the scopes given (--scope, repeatable:
read:<prefix>, write:<prefix> or admin, each one that the admin key's own
scopes grant), and prints its secret on standard output, alone on its
line: it is shown this once and kept nowhere, only its hash. --expires
ends it at a time (RFC 3339, 2027-06-30T00:00:00Z) or after a duration
(90d, 12h).
`, cobra.ExactArgs(1), func(cmd *cobra.Command, c *apiClient, args []string) error {
			scopes, _ := cmd.Flags().GetStringArray("scope")
			label, _ := cmd.Flags().GetString("label")
			when, _ := cmd.Flags().GetString("expires")
			req := api.KeyRequest{Name: args[0], Scopes: scopes, Label: label}
			if when != "" {
				t, err := expiresAt(when, time.Now())
				if err != nil {
					return err
				}
				req.Expires = t
			}
			return c.addKey(cmd.Context(), &req, cmd.OutOrStdout(), cmd.ErrOrStderr())
		})
	cmd.Flags().StringArray("scope", nil, "A scope of the key: read:<prefix>, write:<prefix> or admin (repeatable)")
	cmd.Flags().String("label", "", "What the key is for")
	cmd.Flags().String("expires", "", "When the key stops working: an RFC 3339 time, or a duration such as 90d")
	return cmd
}

// expiresAt reads --expires: an RFC 3339 time, or a duration from now.
func expiresAt(when string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, when); err == nil {
		return t, nil
	}
	d, err := caddy.ParseDuration(when)
	if err != nil || d <= 0 {
		return time.Time{}, fmt.Errorf("--expires %q: give an RFC 3339 time (2027-06-30T00:00:00Z) or a duration (90d, 12h)", when)
	}
	return now.Add(d), nil
}

// keysListCommand builds `caddy ark keys list`.
func keysListCommand() *cobra.Command {
	return apiCommand("list --api <url>",
		"Lists the API keys kept in the store", `
Lists the keys kept in the store, one a line: name, scopes, expiry
("never", or the time, with "expired" once past), when and by whom it was
made, and its label. Keys of the configuration are not listed.
`, cobra.NoArgs, func(cmd *cobra.Command, c *apiClient, _ []string) error {
			return c.listKeys(cmd.Context(), cmd.OutOrStdout())
		})
}

// keysRevokeCommand builds `caddy ark keys revoke`.
func keysRevokeCommand() *cobra.Command {
	return apiCommand("revoke --api <url> <name>",
		"Revokes an API key kept in the store", `
Revokes the stored key called <name>: every node sharing the store refuses
it (401) from its next request on.
`, cobra.ExactArgs(1), func(cmd *cobra.Command, c *apiClient, args []string) error {
			return c.revokeKey(cmd.Context(), args[0], cmd.OutOrStdout())
		})
}

// addKey makes a key and writes its secret to w, and what it is to note.
func (c *apiClient) addKey(ctx context.Context, req *api.KeyRequest, w, note io.Writer) error {
	var k api.NewKey
	if err := c.call(ctx, http.MethodPost, "/keys", req, &k); err != nil {
		return err
	}
	fmt.Fprintln(w, k.Secret)
	fmt.Fprintf(note, "key %s (%s), expires %s: its secret above is shown this once; keep it now\n",
		terminalSafe(k.Name), terminalSafe(strings.Join(k.Scopes, " ")), expiry(&k.KeyInfo))
	return nil
}

// expiry says when k expires.
func expiry(k *api.KeyInfo) string {
	switch {
	case k.Expires.IsZero():
		return "never"
	case k.Expired:
		return k.Expires.UTC().Format(time.RFC3339) + " (expired)"
	}
	return k.Expires.UTC().Format(time.RFC3339)
}

// listKeys writes the stored keys to w, one a line.
func (c *apiClient) listKeys(ctx context.Context, w io.Writer) error {
	var keys []api.KeyInfo
	if err := c.call(ctx, http.MethodGet, "/keys", nil, &keys); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSCOPES\tEXPIRES\tCREATED\tBY\tLABEL")
	for i := range keys {
		k := &keys[i]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", terminalSafe(k.Name), terminalSafe(strings.Join(k.Scopes, " ")), expiry(k),
			k.Created.UTC().Format(time.RFC3339), terminalSafe(k.CreatedBy), terminalSafe(k.Label))
	}
	return tw.Flush()
}

// revokeKey revokes the stored key called name.
func (c *apiClient) revokeKey(ctx context.Context, name string, w io.Writer) error {
	if err := c.call(ctx, http.MethodDelete, "/keys/"+url.PathEscape(name), nil, nil); err != nil {
		return err
	}
	fmt.Fprintf(w, "key %s revoked\n", terminalSafe(name))
	return nil
}
