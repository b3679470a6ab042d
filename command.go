package ark

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"
)

// This file only wires the `caddy ark` subcommands into Caddy's command
// line; what they do lives in command_<name>.go as plain functions.

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "ark",
		Usage: "<command>",
		Short: "Normalizes and resolves ARK identifiers",
		Long: `
Tools for ARK (Archival Resource Key) identifiers, following
draft-ark-uri-scheme:

	caddy ark normalize [<id>...]   print normal forms
	caddy ark check <table>...      validate table files
	caddy ark import <file>         make a table file from CSV, TSV,
	                                a RewriteMap or nginx map blocks
	caddy ark compile <table.json>... -o <file>
	                                compile tables into one mapped file
	caddy ark export <file>         write a compiled table as JSON
	caddy ark resolve <ark>         follow an ARK through a resolver
`,
		CobraFunc: func(cmd *cobra.Command) {
			// Unknown subcommands are errors rather than a silent help page.
			cmd.Args = cobra.NoArgs
			cmd.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
			cmd.AddCommand(normalizeCommand(), checkCommand(), importCommand(), compileCommand(), exportCommand(), resolveCommand())
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
lines. A resolver's URL of an identifier (https://n2t.net/ark:/12345/x) stands
for the identifier: the resolver prefix is not part of it. An identifier that does not parse is reported on standard error as
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

// checkCommand builds `caddy ark check`.
func checkCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "check <table>...",
		Short: "Validates table files as the ark handler would load them",
		Long: `
Loads the table files together exactly as the ark handler would: JSON syntax,
identifiers, targets, statuses, and equivalent identifiers with different
targets across all the files. Prints the identifiers per file and a summary,
or the first problem with its file, line, entry and reason. The exit status is
0 when the tables would load, 1 otherwise: run it in the CI of the repository
that holds your tables. A compiled table (caddy ark compile) is checked on its
own and in full: its checksum, every record and its index.
`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return checkTables(args, cmd.OutOrStdout())
		},
	}
}

// importCommand builds `caddy ark import`.
func importCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import [--format csv|tsv|rewritemap|nginx|auto] [-o <table.json>] <file>",
		Short: "Makes a table file from an existing list of identifiers",
		Long: `
Reads a list of identifiers and their targets and writes it as a table file
({"entries": [...]}), streaming, with the identifiers in normal form. The
formats:

	csv, tsv     id,target[,status] rows; a header row naming the columns
	             is optional (id/_id, target/_target, status, EZID's
	             _status and _created, who/what/when/where and erc.*)
	rewritemap   an Apache RewriteMap text file: "key value" lines
	nginx        the map blocks of an nginx configuration:
	             map $var $out { key value; ... }
	auto         by the file's extension (.csv .tsv .txt .map .conf), else
	             by its first line (the default)

An id may be a resolver's URL of the identifier (https://n2t.net/ark:/12345/x)
or a path (/ark:/12345/x): the part before "ark:" or "urn:" is left out. A
UTF-8 byte order mark and CRLF line ends are accepted. Every entry is checked
as the ark handler checks a table; every bad line, and every identifier
assigned twice with different targets, is reported on standard error as
"<file>:<line>: <reason>", and then no table is written and the exit status
is 1. A line repeating an earlier assignment is left out. With -o the table
appears only once it is complete; on standard output a failed import does not
end the table, so it cannot be loaded by mistake. <file> "-" is standard
input.
`,
		Args: cobra.ExactArgs(1),
	}
	cmd.Flags().StringP("format", "f", "auto", "Input format: csv, tsv, rewritemap, nginx or auto")
	cmd.Flags().StringP("output", "o", "", "Table file to write (default: standard output)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, _ := cmd.Flags().GetString("format")
		output, _ := cmd.Flags().GetString("output")
		if _, ok := importFormats[format]; !ok && format != "auto" {
			return fmt.Errorf("--format must be csv, tsv, rewritemap, nginx or auto, not %q", format)
		}
		return importFile(args[0], format, output, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
	}
	return cmd
}

// compileCommand builds `caddy ark compile`.
func compileCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "compile <table.json>... -o <file>",
		Short: "Compiles table files into one table that opens in milliseconds",
		Long: `
Compiles JSON table files, checked exactly as the ark handler loads them
(same errors), into one compiled table: a versioned binary file with a
checksum that "table <file>" maps in memory instead of reading, so that it
opens at once whatever its size and processes share its pages. The output is
written to a temporary file next to it and renamed into place when complete,
so a watching handler never sees half a file. Compiling streams: memory holds
16 bytes per entry and the index, not the table; temporary files of about the
output's size are written next to it. The exit status is 0 on success.
`,
		Args: cobra.MinimumNArgs(1),
	}
	cmd.Flags().StringP("output", "o", "", "The compiled table to write (required)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		out, _ := cmd.Flags().GetString("output")
		if out == "" {
			return fmt.Errorf("-o <file> is required")
		}
		return compileAll(args, out, cmd.OutOrStdout())
	}
	return cmd
}

// exportCommand builds `caddy ark export`.
func exportCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "export <file>",
		Short: "Writes a compiled table back as a JSON table",
		Long: `
Writes the compiled table <file> to standard output as a JSON table file, one
entry a line, identifiers in normal form, in the order they were compiled.
Compiling the output again gives the same table. The checksum is verified
first.
`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return exportTable(args[0], cmd.OutOrStdout())
		},
	}
}

// resolveCommand builds `caddy ark resolve`.
func resolveCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "resolve [--resolver <url>] [--max-redirects <n>] [--method HEAD|GET] [--timeout <duration>] <ark>",
		Short: "Resolves an ARK with the draft's reference algorithm",
		Long: `
Resolves an ARK through an HTTP resolver with the reference resolution
algorithm of draft-ark-uri-scheme. The ARK is normalized, appended to the
resolver prefix, and redirects (301, 302, 303, 307, 308) are followed one at a
time; each response is printed as "<status> <URI>" (with " -> <Location>" for
a redirect). A success (200, 204, 206, 226, 304) or a location that is not
http or https ends the resolution with "direct: <URI>" (the referent) or
"related: <URI>" (a 303 was seen, so the location is only related to the
ARK). Errors, other statuses, loops and more than --max-redirects redirects
are failures. The exit status is 0 on success, 1 on failure.
`,
		Args: cobra.ExactArgs(1),
	}
	cmd.Flags().String("resolver", defaultResolver, "Resolver prefix the ARK is appended to")
	cmd.Flags().Int("max-redirects", 10, "Redirects to follow at most")
	cmd.Flags().String("method", http.MethodHead, "HTTP method: HEAD or GET")
	cmd.Flags().Duration("timeout", 30*time.Second, "Time limit for the whole resolution (0 for none)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var opts resolveOptions
		opts.Resolver, _ = cmd.Flags().GetString("resolver")
		opts.MaxRedirects, _ = cmd.Flags().GetInt("max-redirects")
		opts.Method, _ = cmd.Flags().GetString("method")
		timeout, _ := cmd.Flags().GetDuration("timeout")

		opts.Method = strings.ToUpper(opts.Method)
		if opts.Method != http.MethodHead && opts.Method != http.MethodGet {
			return fmt.Errorf("--method must be HEAD or GET, not %q", opts.Method)
		}
		if opts.MaxRedirects < 0 {
			return fmt.Errorf("--max-redirects must be 0 or more, not %d", opts.MaxRedirects)
		}
		ctx := cmd.Context()
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		_, err := resolveARK(ctx, http.DefaultClient, opts, args[0], cmd.OutOrStdout())
		return err
	}
	return cmd
}
