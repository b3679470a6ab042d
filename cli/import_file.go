package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/caddy-ark/caddy-ark/importer"
	"github.com/caddy-ark/caddy-ark/internal/osfile"
)

// openImport opens the file at path (standard input for "-") for an
// import, and names its format when format is "auto".
func openImport(path, format string, stdin io.Reader) (br *bufio.Reader, name, detected string, closeInput func(), err error) {
	in, name, closeInput := stdin, "stdin", func() {}
	if path != "-" {
		f, err := osfile.OpenRegular(path)
		if err != nil {
			return nil, "", "", nil, err
		}
		in, name, closeInput = f, path, func() { f.Close() }
	}
	br = bufio.NewReaderSize(in, 64<<10)
	if format == "auto" {
		format = importer.Guess(path, br)
	}
	return br, name, format, closeInput, nil
}

// importFileToPostgres imports the file at path (standard input for "-")
// into the PostgreSQL store at dsn (see importToPostgres).
func importFileToPostgres(path, format, dsn, schema string, stdin io.Reader, errOut io.Writer) error {
	br, name, format, closeInput, err := openImport(path, format, stdin)
	if err != nil {
		return err
	}
	defer closeInput()
	return importToPostgres(br, name, format, dsn, schema, errOut)
}

// importFile imports the file at path (standard input for "-") and writes
// the table to output, or to stdout when output is "". A table written to
// a file appears only once it is complete: it is written beside the file
// and renamed over it.
func importFile(path, format, output string, stdin io.Reader, stdout, errOut io.Writer) error {
	br, name, format, closeInput, err := openImport(path, format, stdin)
	if err != nil {
		return err
	}
	defer closeInput()
	if output == "" {
		stats, err := importer.Convert(br, name, format, stdout, errOut)
		if err == nil {
			fmt.Fprintf(errOut, "%s (%s): %s\n", name, format, stats)
		}
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(output), "."+filepath.Base(output)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	stats, err := importer.Convert(br, name, format, tmp, errOut)
	if err == nil {
		err = tmp.Chmod(0o644)
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
	if err != nil {
		return err
	}
	fmt.Fprintf(errOut, "%s (%s): %s, written to %s\n", name, format, stats, output)
	return nil
}
