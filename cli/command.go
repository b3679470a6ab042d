package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/ezid"
	"github.com/caddy-ark/caddy-ark/importer"
	"github.com/caddy-ark/caddy-ark/store/postgres"
	"github.com/caddy-ark/caddy-ark/table"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"
	"golang.org/x/term"
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
	                                a RewriteMap, nginx map blocks or
	                                a JSON table or export
	caddy ark compile <table.json>... -o <file>
	                                compile tables into one mapped file
	caddy ark export <file>         write a compiled table as JSON
	caddy ark resolve <ark>         follow an ARK through a resolver
	caddy ark mint <shoulder>       mint identifiers through the API
	caddy ark bind <id> <target>    bind an identifier through the API
	caddy ark withdraw <id> <why>   withdraw an identifier through the API
	caddy ark export --api <url>    print the API's store as a table file
	caddy ark ids --api <url>       list and search the API's identifiers
	caddy ark retarget --api <url> --from <a> --to <b> --dry-run
	                                change every target starting with a
	                                to start with b (then --token)
	caddy ark undo --api <url> <batch>
	                                undo a retarget
	caddy ark changes --api <url>   print the recent changes
	caddy ark targets --api <url>   print what the checks of the targets
	                                found (broken, suspect, …)
	caddy ark stats --api <url>     print the resolution statistics
	caddy ark hash-key              hash a key for the api configuration
	caddy ark keys add|list|revoke --api <url>
	                                make, list and revoke API keys kept
	                                in the store
	caddy ark store dump|load       move a whole store, history included,
	                                between bolt and PostgreSQL (NDJSON)
	caddy ark store backup --api <url> -o <file>
	                                back up a running bolt store
`,
		CobraFunc: func(cmd *cobra.Command) {
			// Caddy ends its help with its own documentation's address; the
			// ark commands' help, which their subcommands inherit, ends
			// with this project's.
			cmd.SetHelpTemplate(new(cobra.Command).HelpTemplate() + "\n" + docsFooter + "\n")
			// Unknown subcommands are errors rather than a silent help page.
			cmd.Args = cobra.NoArgs
			cmd.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
			cmd.AddCommand(normalizeCommand(), checkCommand(), importCommand(), compileCommand(), exportCommand(), resolveCommand(),
				mintCommand(), bindCommand(), withdrawCommand(), hashKeyCommand(), storeCommand(), targetsCommand(),
				idsCommand(), retargetCommand(), undoCommand(), changesCommand(), statsCommand(), keysCommand())
		},
	})
}

// docsFooter ends the help of every ark command.
const docsFooter = `The documentation of these commands is at:
https://github.com/caddy-ark/caddy-ark/blob/main/docs/commands.md`

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
	cmd := &cobra.Command{
		Use:   "check [--store <bolt file|postgres DSN> [--schema <name>] | --api <url>] <table>...",
		Short: "Validates table files as the ark handler would load them",
		Long: `
Loads the table files together exactly as the ark handler would: JSON syntax,
identifiers, targets, statuses, and equivalent identifiers with different
targets across all the files. Prints the identifiers per file and a summary,
or the first problem with its file, line, entry and reason. The exit status is
0 when the tables would load, 1 otherwise: run it in the CI of the repository
that holds your tables. A compiled table (caddy ark compile) is checked on its
own and in full: its checksum, every record and its index.

With --store, the tables are also checked against a store, read only, as the
handler checks them when it loads them: no table may assign an identifier the
store holds (bound, minted or withdrawn), and each conflict is named with both
sides. --store takes a bolt file (not one a running Caddy has open: use --api)
or a PostgreSQL DSN. --api checks against the store of a running server
through its API's export, with the key in ` + apiKeyEnv + ` (names minted but
not bound are not exported, so they are not checked that way).
`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkTables(args, cmd.OutOrStdout()); err != nil {
				return err
			}
			storeArg, _ := cmd.Flags().GetString("store")
			schema, _ := cmd.Flags().GetString("schema")
			apiURL, _ := cmd.Flags().GetString("api")
			if storeArg == "" && apiURL == "" {
				return nil
			}
			if storeArg != "" && apiURL != "" {
				return errors.New("give --store or --api, not both")
			}
			return checkAgainstStore(cmd.Context(), args, storeArg, schema, apiURL, cmd.OutOrStdout())
		},
	}
	cmd.Flags().String("store", "", "Also check against this store, read only: a bolt file or a PostgreSQL DSN")
	cmd.Flags().String("schema", postgres.DefaultSchema, "With a PostgreSQL --store: the store's schema")
	cmd.Flags().String("api", "", "Also check against the store of a running server, through its API (key in "+apiKeyEnv+")")
	return cmd
}

// importCommand builds `caddy ark import`.
func importCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import [--format csv|tsv|rewritemap|nginx|json|anvl|xml|auto] [--encoding utf-8|latin1] [-v] [--skip-test-arks] [-o <table.json>] <file>",
		Short: "Makes a table file from an existing list of identifiers",
		Long: `
Reads a list of identifiers and their targets and writes it as a table file
({"entries": [...]}), streaming, with the identifiers in normal form. The
formats:

	csv, tsv     id,target[,status] rows; a header row naming the columns
	             is optional (id, target/_target, status,
	             who/what/when/where and erc.*); a header row with _id
	             is EZID's CSV download, every column an EZID element
	anvl, xml    EZID's ANVL and XML downloads
	rewritemap   an Apache RewriteMap text file: "key value" lines
	nginx        the map blocks of an nginx configuration:
	             map $var $out { key value; ... }, or a file of
	             "key value;" lines as a map block includes them
	json         a JSON table file, caddy ark export's output or the
	             API's export, every field kept as written
	auto         by the file's extension (.csv .tsv .conf .xml), else by
	             its first line: one ending in ";" is nginx, ":: <id>"
	             EZID's ANVL (the default)

A gzip file (EZID's downloads are .gz) is read decompressed. EZID's elements
are kept whole (_owner, _created, _updated, _export, _profile, erc.*, dc.*,
datacite.*, the whole-record datacite XML), as the EZID API keeps them.

An id may be a resolver's URL of the identifier (https://n2t.net/ark:/12345/x)
or a path (/ark:/12345/x): the part before "ark:" or "urn:" is left out. A
UTF-8 byte order mark and CRLF line ends are accepted. Input that is not UTF-8
is refused with its line, unless --encoding latin1 says to read it as Latin-1
(ISO-8859-1). Every entry is checked as the ark handler checks a table; every
bad line, and every identifier assigned twice with different targets, is
reported on standard error as "<file>:<line>: <reason>", and then no table is
written and the exit status is 1. A line repeating an earlier assignment, and
in a table an identifier EZID holds as reserved (a table has no reserved
state), are left out and counted in the summary; -v lists them. In a store
(--postgres) a reserved identifier stays reserved. ARKs under NAAN 99999, which marks test and
invalid ARKs (EZID's test shoulders), are refused as the handler refuses
them, unless --skip-test-arks leaves them out, counted the same way. With -o the table
appears only once it is complete; on standard output a failed import does not
end the table, so it cannot be loaded by mistake. <file> "-" is standard
input.

With --postgres <connection string>, the identifiers go straight into that
PostgreSQL store (schema --schema, created or migrated as a node would) with
COPY, in one transaction: a bad line, or an identifier already bound
differently in the store, keeps nothing.
`,
		Args: cobra.ExactArgs(1),
	}
	cmd.Flags().StringP("format", "f", "auto", "Input format: csv, tsv, rewritemap, nginx, json, anvl, xml (EZID's downloads) or auto")
	cmd.Flags().StringP("output", "o", "", "Table file to write (default: standard output)")
	cmd.Flags().String("encoding", "utf-8", "The input's character encoding: utf-8 or latin1")
	cmd.Flags().BoolP("verbose", "v", false, "List each line left out, not only how many")
	cmd.Flags().Bool("skip-test-arks", false, "Leave out the ARKs under NAAN 99999 (test and invalid ARKs, as in an EZID download), counted in the summary")
	cmd.Flags().String("postgres", "", "Import into the PostgreSQL store at this connection string instead of writing a table")
	cmd.Flags().String("schema", postgres.DefaultSchema, "With --postgres: the store's schema")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var opts importer.Options
		opts.Format, _ = cmd.Flags().GetString("format")
		opts.Encoding, _ = cmd.Flags().GetString("encoding")
		opts.Verbose, _ = cmd.Flags().GetBool("verbose")
		opts.SkipTestARKs, _ = cmd.Flags().GetBool("skip-test-arks")
		opts.EZIDBinding = ezid.ImportBinding
		output, _ := cmd.Flags().GetString("output")
		dsn, _ := cmd.Flags().GetString("postgres")
		schema, _ := cmd.Flags().GetString("schema")
		if err := opts.Check(); err != nil {
			return err
		}
		if dsn != "" {
			if output != "" {
				return errors.New("give -o or --postgres, not both")
			}
			return importFileToPostgres(args[0], opts, dsn, schema, cmd.InOrStdin(), cmd.ErrOrStderr())
		}
		return importFile(args[0], opts, output, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
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
so a watching handler never sees half a file. Compiling sorts and merges in
runs on disk, so its memory does not grow with the number of entries: it is
sized for --max-memory (512MiB by default); temporary files of about the
output's size plus 12 bytes per entry are written next to the output, or in
--tmp. --progress writes how far it has got to stderr, as a bar redrawn on one
line on a terminal and as a line every few seconds elsewhere, with a line as
each phase (read, check, sort, index, write) ends, saying what it did and how
long it took, and the total time; it is on by default when stderr is a
terminal. The exit status is 0 on
success.
`,
		Args: cobra.MinimumNArgs(1),
	}
	cmd.Flags().StringP("output", "o", "", "The compiled table to write (required)")
	cmd.Flags().String("max-memory", "512MiB", "The memory compiling is sized for, whatever the number of entries (e.g. 2GiB)")
	cmd.Flags().String("tmp", "", "The directory for temporary files (default: the output's)")
	cmd.Flags().Bool("progress", false, "Write progress to stderr (default: when stderr is a terminal)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		out, _ := cmd.Flags().GetString("output")
		if out == "" {
			return fmt.Errorf("-o <file> is required")
		}
		mem, _ := cmd.Flags().GetString("max-memory")
		maxMemory, err := humanize.ParseBytes(mem)
		if err != nil || maxMemory < 1<<20 || maxMemory > 1<<50 {
			return fmt.Errorf("--max-memory %q: want a size of at least 1MiB, such as 512MiB or 2GiB", mem)
		}
		tmp, _ := cmd.Flags().GetString("tmp")
		opts := table.CompileOptions{MaxMemory: int64(maxMemory), TempDir: tmp}
		stderr := cmd.ErrOrStderr()
		f, isFile := stderr.(*os.File)
		terminal := isFile && term.IsTerminal(int(f.Fd()))
		progress, _ := cmd.Flags().GetBool("progress")
		if !cmd.Flags().Changed("progress") {
			progress = terminal
		}
		if !progress {
			return compileAll(args, out, opts, cmd.OutOrStdout())
		}
		p := &progressPrinter{w: stderr, terminal: terminal}
		opts.Progress = p.report
		err = compileAll(args, out, opts, cmd.OutOrStdout())
		p.done(err)
		return err
	}
	return cmd
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

// apiCommand builds a command that calls the management API: it has the
// --api flag and takes its key from $ARK_API_KEY.
func apiCommand(use, short, long string, args cobra.PositionalArgs, run func(cmd *cobra.Command, c *apiClient, args []string) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Long:  long + "\nThe key is read from $" + apiKeyEnv + ". A refusal is printed with its status\nand reason, and the exit status is 1.\n",
		Args:  args,
	}
	cmd.Flags().String("api", "", "The API's URL: https://<site><prefix>, such as https://example.org/api/ark")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		base, _ := cmd.Flags().GetString("api")
		c, err := newAPIClient(base, os.Getenv(apiKeyEnv), &http.Client{Timeout: 5 * time.Minute})
		if err != nil {
			return err
		}
		return run(cmd, c, args)
	}
	return cmd
}

// bindFlags adds the flags of a binding: --status, --no-passthrough,
// --meta, --meta-file.
func bindFlags(cmd *cobra.Command) {
	cmd.Flags().Int("status", 0, "The answer: 302 (default for URLs), 303, 307, or 200 (default for local paths)")
	cmd.Flags().Bool("no-passthrough", false, "Descendants (the identifier with a qualifier) do not resolve through it")
	cmd.Flags().StringArray("meta", nil, "Metadata key=value, served by ?info (repeatable); key= removes the key")
	cmd.Flags().String("meta-file", "", "Metadata from a JSON object of strings (null removes a key); --meta adds to it")
}

// bindFromFlags reads the flags bindFlags added, for target.
func bindFromFlags(cmd *cobra.Command, target string) *api.BindRequest {
	status, _ := cmd.Flags().GetInt("status")
	noPass, _ := cmd.Flags().GetBool("no-passthrough")
	b := &api.BindRequest{Target: target, Status: status}
	if noPass {
		b.Passthrough = new(bool)
	}
	return b
}

// mintCommand builds `caddy ark mint`.
func mintCommand() *cobra.Command {
	cmd := apiCommand("mint --api <url> [-n <count>] [--target <target>] [--meta key=value] <shoulder>",
		"Mints new identifiers under a shoulder through the API", `
Mints -n new identifiers (default 1, at most 1000) under a shoulder that has
a minter, such as ark:12345/x5, and prints them one a line. With --target,
each is bound at once; in the target, {id} stands for the new identifier,
{naan}, {name}, {shoulder} and {blade} for its parts.
`, cobra.ExactArgs(1), func(cmd *cobra.Command, c *apiClient, args []string) error {
			n, _ := cmd.Flags().GetInt("n")
			target, _ := cmd.Flags().GetString("target")
			bind, err := mintBindFromFlags(cmd, target)
			if err != nil {
				return err
			}
			return c.mintIDs(cmd.Context(), args[0], n, bind, cmd.OutOrStdout())
		})
	cmd.Flags().IntP("n", "n", 1, "How many identifiers to mint")
	cmd.Flags().String("target", "", "Bind each new identifier to this target; {id}, {naan}, {name}, {shoulder}, {blade} stand for its parts")
	bindFlags(cmd)
	return cmd
}

// bindCommand builds `caddy ark bind`.
func bindCommand() *cobra.Command {
	cmd := apiCommand("bind --api <url> [--status <status>] [--meta key=value] <id> [<target>]",
		"Binds an identifier to a target through the API", `
Creates or updates the binding of an identifier: a local path or an absolute
http(s) URL. An update changes only what it is given (the target, --status,
--no-passthrough, --meta keys) and keeps the rest, metadata included;
--no-passthrough=false restores passthrough, --status 0 the default status.
Prints the binding as stored, with its new version.
`, cobra.RangeArgs(1, 2), func(cmd *cobra.Command, c *apiClient, args []string) error {
			patch, err := bindPatchFromFlags(cmd, args)
			if err != nil {
				return err
			}
			return c.bindID(cmd.Context(), args[0], patch, cmd.OutOrStdout())
		})
	bindFlags(cmd)
	return cmd
}

// withdrawCommand builds `caddy ark withdraw`.
func withdrawCommand() *cobra.Command {
	return apiCommand("withdraw --api <url> <id> <reason>",
		"Withdraws an identifier through the API", `
Withdraws an identifier for good: it answers 410 Gone with the reason from
then on, and is never bound or minted again.
`, cobra.ExactArgs(2), func(cmd *cobra.Command, c *apiClient, args []string) error {
			return c.withdrawID(cmd.Context(), args[0], args[1], cmd.OutOrStdout())
		})
}

// exportCommand builds `caddy ark export`: a compiled table, or with
// --api the API's store, written as a JSON table.
func exportCommand() *cobra.Command {
	cmd := apiCommand("export <compiled table> | export --api <url>",
		"Writes a compiled table, or the API's store, as a JSON table", `
With a file, writes the compiled table <file> to standard output as a JSON
table file, one entry a line, identifiers in normal form, in the order they
were compiled. Compiling the output again gives the same table. The checksum
is verified first.

With --api, prints every identifier of the API's store that the key may read
as a table file, which caddy ark check and the table subdirective read.
`, cobra.MaximumNArgs(1), func(cmd *cobra.Command, c *apiClient, _ []string) error {
			return c.exportTable(cmd.Context(), cmd.OutOrStdout())
		})
	apiRun := cmd.RunE
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		api, _ := cmd.Flags().GetString("api")
		switch {
		case len(args) == 1 && api == "":
			return table.Export(args[0], cmd.OutOrStdout())
		case len(args) == 0 && api != "":
			return apiRun(cmd, args)
		}
		return errors.New("give either a compiled table file or --api <url>, not both or neither")
	}
	return cmd
}

// hashKeyCommand builds `caddy ark hash-key`.
func hashKeyCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hash-key [--new]",
		Short: "Prints the SHA-256 hash of an API key, for the api configuration",
		Long: `
Reads an API key from standard input and prints its SHA-256 hash, which the
api subdirective's key lines and key files take (printf %s "$KEY" | sha256sum
gives the same). With --new, makes a new random key and prints it, then its
hash: keep the key secret, configure the hash.
`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var key string
			if fresh, _ := cmd.Flags().GetBool("new"); fresh {
				key = newKey()
				fmt.Fprintln(cmd.OutOrStdout(), key)
			} else {
				data, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), 4096))
				if err != nil {
					return err
				}
				key = string(data)
			}
			hash, err := hashKey(key)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), hash)
			return nil
		},
	}
	cmd.Flags().Bool("new", false, "Make a new random key")
	return cmd
}
