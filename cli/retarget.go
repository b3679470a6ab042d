package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/spf13/cobra"
)

// retargetCommand builds `caddy ark retarget`.
func retargetCommand() *cobra.Command {
	cmd := apiCommand("retarget --api <url> --from <start> --to <start> [--prefix <prefix>] (--dry-run | --token <token>)",
		"Changes every target that starts with one address to start with another, through the API", `
Changes the target of every bound identifier the key may write (under
--prefix, when given) whose target starts with --from, so that it starts
with --to instead: POST <api>/retarget. --dry-run changes nothing and prints
how many would change, the first 20 changes, and a token; --token <token>
applies the change only if the same identifiers, at the same versions,
would change as in that dry run. Applied, it prints how many changed and
the batch that caddy ark undo undoes. Without --dry-run or --token it
refuses: look before you leap.
`, cobra.NoArgs, func(cmd *cobra.Command, c *apiClient, _ []string) error {
			var req api.RetargetRequest
			req.From, _ = cmd.Flags().GetString("from")
			req.To, _ = cmd.Flags().GetString("to")
			req.Prefix, _ = cmd.Flags().GetString("prefix")
			req.DryRun, _ = cmd.Flags().GetBool("dry-run")
			req.Token, _ = cmd.Flags().GetString("token")
			switch {
			case req.DryRun && req.Token != "":
				return errors.New("give --dry-run or --token, not both")
			case !req.DryRun && req.Token == "":
				return errors.New("give --dry-run to see what would change, then --token <its token> to change it")
			}
			return c.retarget(cmd.Context(), req, cmd.OutOrStdout())
		})
	cmd.Flags().String("from", "", "The start of the targets to change, as written in them, such as https://old.example.org/")
	cmd.Flags().String("to", "", "What replaces it, such as https://new.example.org/")
	cmd.Flags().String("prefix", "", "Only identifiers under this NAAN, shoulder or URN namespace, such as ark:12345/x5")
	cmd.Flags().Bool("dry-run", false, "Change nothing: print what would change, and the token that applies it")
	cmd.Flags().String("token", "", "Apply the change previewed by the dry run that printed this token")
	return cmd
}

// undoCommand builds `caddy ark undo`.
func undoCommand() *cobra.Command {
	return apiCommand("undo --api <url> <batch>",
		"Undoes a retarget (or an undo) through the API", `
Gives back to every identifier that batch <batch> changed (a retarget, or an
undo) the binding it had before, except those changed again since, which it
prints: POST <api>/batches/<batch>/undo. The undo is a batch of its own.
`, cobra.ExactArgs(1), func(cmd *cobra.Command, c *apiClient, args []string) error {
			batch, err := strconv.ParseUint(args[0], 10, 64)
			if err != nil || batch == 0 {
				return fmt.Errorf("batch %q: the number a retarget printed", args[0])
			}
			return c.undo(cmd.Context(), batch, cmd.OutOrStdout())
		})
}

// retarget sends req and prints the preview or the result.
func (c *apiClient) retarget(ctx context.Context, req api.RetargetRequest, w io.Writer) error {
	if req.DryRun {
		var pre api.RetargetPreview
		if err := c.call(ctx, http.MethodPost, "/retarget", req, &pre); err != nil {
			return err
		}
		fmt.Fprintf(w, "%s would change\n", plural(pre.Count, "identifier"))
		for _, ch := range pre.Changes {
			fmt.Fprintf(w, "%s %s -> %s\n", terminalSafe(ch.ID), terminalSafe(ch.Old), terminalSafe(ch.New))
		}
		if more := pre.Count - len(pre.Changes); more > 0 {
			fmt.Fprintf(w, "… and %d more\n", more)
		}
		fmt.Fprintf(w, "token %s\n", terminalSafe(pre.Token))
		return nil
	}
	var res api.RetargetResult
	if err := c.call(ctx, http.MethodPost, "/retarget", req, &res); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s changed, batch %d\n", plural(res.Count, "identifier"), res.Batch)
	for _, id := range res.Skipped {
		fmt.Fprintf(w, "skipped %s: changed meanwhile into something the retarget does not fit\n", terminalSafe(id))
	}
	return nil
}

// undo undoes batch and prints what it restored and skipped.
func (c *apiClient) undo(ctx context.Context, batch uint64, w io.Writer) error {
	var res api.UndoResult
	if err := c.call(ctx, http.MethodPost, "/batches/"+strconv.FormatUint(batch, 10)+"/undo", nil, &res); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s restored, batch %d\n", plural(res.Restored, "identifier"), res.Batch)
	for _, id := range res.Skipped {
		fmt.Fprintf(w, "skipped %s: changed since\n", terminalSafe(id))
	}
	return nil
}

// plural writes n nouns, in the singular for one.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
