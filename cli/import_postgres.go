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
)

// importToPostgres imports what importer.Bindings makes of br straight
// into the PostgreSQL store at dsn, under schema: the rows stream through
// COPY in one transaction, so a refused line or a conflict with the store
// keeps nothing. EZID's reserved identifiers are kept reserved. The
// store's schema is created or migrated first, as a Caddy node would. The
// table files of Caddy configs are not consulted: an identifier they
// assign resolves from them whatever the store says.
func importToPostgres(br *bufio.Reader, name string, opts importer.Options, dsn, schema string, errOut io.Writer) error {
	b, err := postgres.Open(dsn, schema)
	if err != nil {
		return err
	}
	defer b.Destruct()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bindings := make(chan *store.Binding, 256)
	var (
		stats   importer.Stats
		readErr error // valid once bindings is closed
	)
	go func() {
		defer close(bindings)
		stats, readErr = importer.Bindings(br, name, opts, errOut, func(sb *store.Binding) error {
			select {
			case bindings <- sb:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	n, err := b.Import(ctx, func() (*store.Binding, error) {
		if sb, ok := <-bindings; ok {
			return sb, nil
		}
		if readErr != nil {
			return nil, readErr
		}
		return nil, io.EOF
	}, "caddy ark import")
	cancel()
	for range bindings { // let the reader finish
	}
	if err != nil {
		var ie *store.ImportError
		if errors.As(err, &ie) {
			return fmt.Errorf("%s: nothing imported: entry %d (%s) is already bound differently in the store: %w", name, ie.Index, ie.Key, ie.Err)
		}
		return fmt.Errorf("%s: nothing imported: %w", name, err)
	}
	fmt.Fprintf(errOut, "%s (%s): %s; %d added to the store, the rest were bound the same way already\n", name, opts.Format, stats, n)
	return nil
}
