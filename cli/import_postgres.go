package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/caddy-ark/caddy-ark/importer"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/postgres"
	"github.com/caddy-ark/caddy-ark/table"
)

// importToPostgres imports what importTable makes of br straight into the
// PostgreSQL store at dsn, under schema: the rows stream through COPY in
// one transaction, so a refused line or a conflict with the store keeps
// nothing. The store's schema is created or migrated first, as a Caddy
// node would. The table files of Caddy configs are not consulted: an
// identifier they assign resolves from them whatever the store says.
func importToPostgres(br *bufio.Reader, name string, opts importer.Options, dsn, schema string, errOut io.Writer) error {
	b, err := postgres.Open(dsn, schema)
	if err != nil {
		return err
	}
	defer b.Destruct()

	pr, pw := io.Pipe()
	var stats importer.Stats
	go func() {
		var err error
		stats, err = importer.Convert(br, name, opts, pw, errOut)
		pw.CloseWithError(err)
	}()
	entries := make(chan *table.Entry)
	read := make(chan error, 1)
	go func() {
		_, err := table.NewReader(pr).Each(func(e *table.Entry) error { entries <- e; return nil })
		pr.CloseWithError(err)
		close(entries)
		read <- err
	}()
	n, err := b.Import(context.Background(), func() (*store.Binding, error) {
		e, ok := <-entries
		if !ok {
			if err := <-read; err != nil {
				return nil, err
			}
			return nil, io.EOF
		}
		return importer.Binding(e)
	}, "caddy ark import")
	if err != nil {
		pr.CloseWithError(err)
		for range entries { // let the reader finish
		}
		var ie *store.ImportError
		if errors.As(err, &ie) {
			return fmt.Errorf("%s: nothing imported: entry %d (%s) is already bound differently in the store: %w", name, ie.Index, ie.Key, ie.Err)
		}
		return fmt.Errorf("%s: nothing imported: %w", name, err)
	}
	fmt.Fprintf(errOut, "%s (%s): %s; %d added to the store, the rest were bound the same way already\n", name, opts.Format, stats, n)
	return nil
}
