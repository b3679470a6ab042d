package ark

import (
	"fmt"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"
)

// This file only wires the `caddy ark` subcommands into Caddy's command
// line; what they do lives in command_<name>.go as plain functions.

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "ark",
		Usage: "<command>",
		Short: "Normalizes ARK identifiers",
		Long: `
Tools for ARK (Archival Resource Key) identifiers, following
draft-ark-uri-scheme:

	caddy ark normalize [<id>...]   print normal forms
`,
		CobraFunc: func(cmd *cobra.Command) {
			// Unknown subcommands are errors rather than a silent help page.
			cmd.Args = cobra.NoArgs
			cmd.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
			cmd.AddCommand(normalizeCommand())
			// `caddy ark check <table.json>...` (table validation) is
			// added here, next to the others, when it exists.
		},
	})
}

// normalizeCommand builds `caddy ark normalize`.
func normalizeCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "normalize [<id>...]",
		Short: "Prints the normal form of ARKs and URNs",
		Long: `
Prints the normal form of each identifier (ARK or URN), one per line. With no
argument, reads identifiers from standard input, one per line, skipping blank
lines. An identifier that does not parse is reported on standard error as
"<input>: <error>", with the byte offset of the problem, and the others are
still processed. The exit status is 1 if any identifier failed, else 0.
`,
		RunE: func(cmd *cobra.Command, args []string) error {
			failed, err := normalizeAll(args, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if failed > 0 {
				cmd.SilenceErrors = true // each failure is already reported
				return fmt.Errorf("%d identifier(s) failed to normalize", failed)
			}
			return nil
		},
	}
}
