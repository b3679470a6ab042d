package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddy-ark/caddy-ark/store/postgres"
	"github.com/caddy-ark/caddy-ark/table"
	bbolt "go.etcd.io/bbolt"
)

// checkAgainstStore checks that the tables at paths assign no identifier
// that the store holds (bound, minted or withdrawn), as the handler does
// when it loads them: the store is a bolt file or a PostgreSQL DSN
// (see isPostgresDSN), or, with apiURL, the store behind a running
// server's API, read through its export.
func checkAgainstStore(ctx context.Context, paths []string, storeArg, schema, apiURL string, out io.Writer) error {
	t, err := table.Open(paths, nil, false)
	if err != nil {
		return err
	}
	var bindings resolve.Bindings
	switch {
	case apiURL != "":
		c, err := newAPIClient(apiURL, os.Getenv(apiKeyEnv), http.DefaultClient)
		if err != nil {
			return err
		}
		bindings = exportedBindings{c}
	case isPostgresDSN(storeArg):
		b, err := postgres.Open(storeArg, schema)
		if err != nil {
			return err
		}
		defer b.Destruct()
		bindings = b
	default:
		s, closeStore, err := bolt.OpenReadOnly(storeArg)
		if errors.Is(err, bbolt.ErrTimeout) {
			return fmt.Errorf("%w; check through its API instead (--api)", err)
		}
		if err != nil {
			return err
		}
		defer closeStore()
		bindings = s
	}
	if err := resolve.CheckSources(ctx, t, bindings); err != nil {
		return err
	}
	fmt.Fprintln(out, "no identifier of the tables is held by the store")
	return nil
}

// exportedBindings reads the bindings of a running server through its
// API's export: those bound and withdrawn (the export leaves out names
// minted but not bound), without versions.
type exportedBindings struct{ c *apiClient }

// Each implements resolve.Bindings.
func (e exportedBindings) Each(ctx context.Context, fn func(*store.Binding) error) error {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(e.c.exportTable(ctx, pw)) }()
	defer pr.Close()
	_, err := table.NewReader(pr).Each(func(en *table.Entry) error {
		key, _, a, err := en.Compile()
		if err != nil {
			return err
		}
		return fn(&store.Binding{Key: key, Target: a.Target, Status: a.Status})
	})
	return err
}
