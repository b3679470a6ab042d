package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/osfile"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddy-ark/caddy-ark/store/postgres"
	"github.com/caddyserver/caddy/v2"
	"github.com/spf13/cobra"
	bbolt "go.etcd.io/bbolt"
)

// storeCommand builds `caddy ark store`: whole stores copied, moved and
// backed up. Its subcommands are named for what they do to a store, as
// the other commands are: dump writes one out, load fills an empty one,
// backup copies a running one through the API.
func storeCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "store",
		Short: "Dumps, loads, backs up whole stores, and shows a PostgreSQL store's servers",
		Long: `
Moves whole stores, history and statistics included: dump writes a store
(a bolt file no Caddy has open, or a PostgreSQL store) as NDJSON; load
fills a new, empty store with it, of either kind; backup copies the bolt
file of a running Caddy through the API. status shows each server of a
PostgreSQL store: up, primary or standby, replay lag.
`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(storeDumpCommand(), storeLoadCommand(), storeBackupCommand(), storeStatusCommand())
	return cmd
}

// storeFlags adds --store and --schema.
func storeFlags(cmd *cobra.Command) {
	cmd.Flags().String("store", "", "The store: a bolt file, or a PostgreSQL connection string (postgres://… or key=value pairs)")
	cmd.Flags().String("schema", postgres.DefaultSchema, "With a PostgreSQL store: its schema")
}

// storeDumpCommand builds `caddy ark store dump`.
func storeDumpCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dump --store <bolt file | postgres DSN> [--schema ark] [--version 1 [--without-stats]] [-o <file>]",
		Short: "Writes a whole store as NDJSON, history included",
		Long: `
Writes everything a store holds, as of one moment, as NDJSON (one JSON object
a line): every binding (names minted but not bound, and withdrawals,
included) in key order, the history of every change with its sequence
number, version, time and key name, the minters' counters, and the
resolution statistics (every day's counts kept), between a header line and
an end line that counts them. caddy ark store load reads it into a new store
of either kind; it reads dumps of format version 1, which hold no
statistics, too.

A bolt file is opened read only: the dump changes nothing in it, not even
the format of a file an older version wrote. It must not be open in a
running Caddy (bbolt locks it; the dump fails after a few seconds): back
that up with caddy ark store backup, then dump the backup. A PostgreSQL
store is read from one snapshot while its nodes go on. With -o, the file
appears only once the dump is complete.

--version 1 writes format version 1, which versions of caddy-ark before
statistics were dumped read: the way back to one of them. Version 1 cannot
hold statistics, so a store that holds any is refused (nothing written),
unless --without-stats leaves them out, saying how many rows it left. It
never holds the API keys kept in the store; the dump says how many it left.
`,
		Args: cobra.NoArgs,
	}
	storeFlags(cmd)
	cmd.Flags().StringP("output", "o", "", "The dump to write (default: standard output)")
	cmd.Flags().Int("version", store.DumpVersion, fmt.Sprintf("The dump's format version: %d, or %d for older versions of caddy-ark (no statistics)", store.DumpVersion, store.DumpVersionNoStats))
	cmd.Flags().Bool("without-stats", false, fmt.Sprintf("With --version %d: leave the statistics out of the dump rather than refuse a store that holds them", store.DumpVersionNoStats))
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		output, _ := cmd.Flags().GetString("output")
		version, _ := cmd.Flags().GetInt("version")
		withoutStats, _ := cmd.Flags().GetBool("without-stats")
		switch {
		case version != store.DumpVersion && version != store.DumpVersionNoStats:
			return fmt.Errorf("--version %d: this version writes dumps of version %d and %d", version, store.DumpVersion, store.DumpVersionNoStats)
		case withoutStats && version != store.DumpVersionNoStats:
			return fmt.Errorf("--without-stats goes with --version %d: a dump of version %d holds the statistics", store.DumpVersionNoStats, version)
		}
		d, name, closeStore, err := openStoreFlag(cmd, false)
		if err != nil {
			return err
		}
		defer closeStore()
		var (
			summary string // what the dump holds, for the last line
			leftOut int
		)
		write := func(w io.Writer) error {
			if version == store.DumpVersionNoStats {
				counts, n, err := store.WriteDumpNoStats(cmd.Context(), d, w, withoutStats)
				summary, leftOut = fmt.Sprintf("%v (version %d)", counts, version), n
				return err
			}
			counts, err := store.WriteDump(cmd.Context(), d, w)
			summary = counts.String()
			return err
		}
		if output == "" {
			err = write(cmd.OutOrStdout())
		} else {
			err = writeAtomically(output, 0o600, func(f *os.File) error { return write(f) })
		}
		var notDumped *store.StatsNotDumpedError
		if errors.As(err, &notDumped) {
			return fmt.Errorf("%s: %w: add --without-stats to leave them out, or dump version %d (no --version) to keep them", name, err, store.DumpVersion)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if withoutStats {
			rows := "statistics rows"
			if leftOut == 1 {
				rows = "statistics row"
			}
			summary += fmt.Sprintf("; left out %d %s, which version %d cannot hold", leftOut, rows, version)
		}
		if version == store.DumpVersionNoStats {
			n, err := storedKeys(cmd.Context(), d)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if n > 0 {
				keys := "API keys"
				if n == 1 {
					keys = "API key"
				}
				summary += fmt.Sprintf("; left out %d %s kept in the store, which version %d cannot hold: make them again in the new store", n, keys, version)
			}
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "%s: dumped %s\n", name, summary)
		return nil
	}
	return cmd
}

// storeLoadCommand builds `caddy ark store load`.
func storeLoadCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "load --store <bolt file | postgres DSN> [--schema ark] [<dump> | -]",
		Short: "Fills a new, empty store with a dump",
		Long: `
Reads a dump that caddy ark store dump wrote (from <dump>, or standard input)
into a store that holds nothing yet: a bolt file, created if missing, or a
PostgreSQL store, its schema created or migrated as a node would. Everything
is kept as it was: versions, times, key names, history sequence numbers,
minted names, withdrawals, counters and statistics, count for count; changes
made after continue from it.
A store that holds anything is refused, and so is a dump cut short, out of
order, holding anything unknown, or holding a binding that no write makes (a
permanent redirect, a status or target no table entry may have: a dump
edited by hand): then nothing is loaded. PostgreSQL keeps times to the
microsecond.
`,
		Args: cobra.MaximumNArgs(1),
	}
	storeFlags(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		in, inName := cmd.InOrStdin(), "stdin"
		if len(args) == 1 && args[0] != "-" {
			f, err := osfile.OpenRegular(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			in, inName = f, args[0]
		}
		d, name, closeStore, err := openStoreFlag(cmd, true)
		if err != nil {
			return err
		}
		defer closeStore()
		counts, err := store.ReadDumpChecked(cmd.Context(), d, in, checkDumpBinding)
		if errors.Is(err, store.ErrNotEmpty) {
			return fmt.Errorf("%s: nothing loaded: %w", name, err)
		}
		if err != nil {
			return fmt.Errorf("%s: nothing loaded: %s: %w", name, inName, err)
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "%s: loaded %v from %s\n", name, counts, inName)
		return nil
	}
	return cmd
}

// storeBackupCommand builds `caddy ark store backup`.
func storeBackupCommand() *cobra.Command {
	cmd := apiCommand("backup --api <url> -o <file>",
		"Backs up the bolt store of a running Caddy through the API", `
Copies the bolt store of a running Caddy, consistently and without stopping
it, through the API's GET backup (the key needs the admin scope), into
<file>: a bbolt file that can replace the store's file, or be dumped with
caddy ark store dump. The copy is checked (every page of the bbolt file)
before it is renamed into place.
`, cobra.NoArgs, func(cmd *cobra.Command, c *apiClient, _ []string) error {
			output, _ := cmd.Flags().GetString("output")
			if output == "" {
				return errors.New("-o <file> is required")
			}
			size, err := c.backup(cmd.Context(), output)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%s: %d bytes, checked\n", output, size)
			return nil
		})
	cmd.Flags().StringP("output", "o", "", "The backup file to write (required)")
	return cmd
}

// backup writes the API's GET backup to output, checked as a bbolt file
// before it appears, and returns its size.
func (c *apiClient) backup(ctx context.Context, output string) (int64, error) {
	var size int64
	err := writeAtomically(output, 0o600, func(f *os.File) error {
		err := c.call(ctx, http.MethodGet, "/backup", nil, func(body io.Reader) error {
			var err error
			size, err = io.Copy(f, body)
			return err
		})
		if err != nil {
			return err
		}
		return checkBolt(f.Name())
	})
	return size, err
}

// checkBolt opens the bbolt file at path read-only and checks every page.
func checkBolt(path string) error {
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return fmt.Errorf("the backup is not a bbolt file: %w", err)
	}
	defer db.Close()
	return db.View(func(tx *bbolt.Tx) error {
		for err := range tx.Check() {
			return fmt.Errorf("the backup is damaged: %w", err)
		}
		return nil
	})
}

// writeAtomically calls write with a temporary file beside output, then
// gives it mode, syncs it and renames it over output: the file appears only
// once complete, and not at all when write fails.
func writeAtomically(output string, mode os.FileMode, write func(f *os.File) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(output), "."+filepath.Base(output)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	err = write(tmp)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), output)
	}
	return err
}

// openStoreFlag opens the store that --store names (see openStore).
func openStoreFlag(cmd *cobra.Command, write bool) (store.Dumper, string, func(), error) {
	spec, _ := cmd.Flags().GetString("store")
	schema, _ := cmd.Flags().GetString("schema")
	return openStore(spec, schema, write)
}

// openStore opens the store spec names: a PostgreSQL store (under schema)
// for a connection string (a postgres:// or postgresql:// URL, or
// key=value pairs), else the bolt file at that path. With write (store
// load) a bolt file is opened as Caddy opens it: created if missing, and
// marked of the current format. Without it (store dump) the file must
// exist and is opened read only, so that reading it changes nothing, not
// even the format of a file that an older version wrote. It returns the
// store, a name for messages, and the function that closes it.
func openStore(spec, schema string, write bool) (store.Dumper, string, func(), error) {
	if spec == "" {
		return nil, "", nil, errors.New("--store is required: a bolt file, or a PostgreSQL connection string")
	}
	if isPostgresDSN(spec) {
		b, err := postgres.Open(spec, schema)
		if err != nil {
			return nil, "", nil, err
		}
		return b, "postgres schema " + schema, func() { b.Destruct() }, nil
	}
	if !write {
		if _, err := os.Stat(spec); err != nil {
			return nil, "", nil, fmt.Errorf("--store %s: %w", spec, err)
		}
		s, closeStore, err := bolt.OpenReadOnly(spec)
		if errors.Is(err, bbolt.ErrTimeout) {
			err = fmt.Errorf("%w; back it up with caddy ark store backup --api <url>, and dump the backup", err)
		}
		if err != nil {
			return nil, "", nil, err
		}
		return s, spec, func() { closeStore() }, nil
	}
	s := &bolt.Store{Path: spec}
	if err := s.Provision(caddy.Context{}); err != nil {
		if errors.Is(err, bbolt.ErrTimeout) {
			err = fmt.Errorf("%w; a running Caddy holds it: stop it, or load into another store", err)
		}
		return nil, "", nil, err
	}
	return s, spec, func() { s.Cleanup() }, nil
}

// isPostgresDSN reports whether spec is a PostgreSQL connection string (a
// postgres:// or postgresql:// URL, or key=value pairs starting with a
// keyword, such as "host=/run/postgresql dbname=ark") rather than a
// file's path ("./a=b.db" is a file).
func isPostgresDSN(spec string) bool {
	lower := strings.ToLower(spec)
	return strings.HasPrefix(lower, "postgres://") || strings.HasPrefix(lower, "postgresql://") || dsnKeyword.MatchString(spec)
}

// dsnKeyword matches the start of a key=value connection string.
var dsnKeyword = regexp.MustCompile(`^\s*[a-z_]+\s*=`)

// storedKeys returns how many API keys d keeps (store.KeyStore), which a
// dump of version 1 leaves out.
func storedKeys(ctx context.Context, d store.Dumper) (int, error) {
	ks, ok := d.(store.KeyStore)
	if !ok {
		return 0, nil
	}
	keys, err := ks.Keys(ctx)
	return len(keys), err
}
