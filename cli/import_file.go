package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/caddy-ark/caddy-ark/ezid/download"
	"github.com/caddy-ark/caddy-ark/importer"
	"github.com/caddy-ark/caddy-ark/internal/osfile"
)

// openImport opens the file at path (standard input for "-") for an
// import, decompressed when it is gzip (EZID's downloads are), and names
// its format when opts.Format is "auto".
func openImport(path string, opts importer.Options, stdin io.Reader) (br *bufio.Reader, name string, detected importer.Options, closeInput func(), err error) {
	in, name, closeInput := stdin, "stdin", func() {}
	if path != "-" {
		f, err := osfile.OpenRegular(path)
		if err != nil {
			return nil, "", opts, nil, err
		}
		in, name, closeInput = f, path, func() { f.Close() }
	}
	br = bufio.NewReaderSize(in, 64<<10)
	if plain, err := download.Gunzip(br); err != nil {
		closeInput()
		return nil, "", opts, nil, fmt.Errorf("%s: %w", name, err)
	} else if plain != io.Reader(br) {
		br = bufio.NewReaderSize(plain, 64<<10)
	}
	if opts.Format == "auto" {
		opts.Format = importer.Guess(path, br)
	}
	return br, name, opts, closeInput, nil
}

// importFileToPostgres imports the file at path (standard input for "-")
// into the PostgreSQL store at dsn (see importToPostgres).
func importFileToPostgres(path string, opts importer.Options, dsn, schema string, stdin io.Reader, errOut io.Writer) error {
	br, name, opts, closeInput, err := openImport(path, opts, stdin)
	if err != nil {
		return err
	}
	defer closeInput()
	return importToPostgres(br, name, opts, dsn, schema, errOut)
}

// importFile imports the file at path (standard input for "-") and writes
// the table to output, or to stdout when output is "". A table written to
// a file appears only once it is complete: it is written beside the file
// and renamed over it.
func importFile(path string, opts importer.Options, output string, stdin io.Reader, stdout, errOut io.Writer) error {
	br, name, opts, closeInput, err := openImport(path, opts, stdin)
	if err != nil {
		return err
	}
	defer closeInput()
	if output == "" {
		stats, err := importer.Convert(br, name, opts, stdout, errOut)
		if err == nil {
			fmt.Fprintf(errOut, "%s (%s): %s\n", name, opts.Format, stats)
		}
		return err
	}
	var stats importer.Stats
	if err := writeAtomically(output, 0o644, func(f *os.File) error {
		stats, err = importer.Convert(br, name, opts, f, errOut)
		return err
	}); err != nil {
		return err
	}
	fmt.Fprintf(errOut, "%s (%s): %s, written to %s\n", name, opts.Format, stats, output)
	return nil
}
