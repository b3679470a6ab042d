package oai_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/oai"
	"github.com/caddy-ark/caddy-ark/store"
	boltstore "github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddyserver/caddy/v2"
)

// storeSite is a site with a store and no table, as the provider sees it.
type storeSite struct{ st store.Store }

func (s storeSite) Table() (table.Table, time.Time)   { return nil, time.Time{} }
func (s storeSite) Store() store.Store                { return s.st }
func (s storeSite) Links(*http.Request) info.Links    { return info.Links{Base: "http://ark.example.org"} }
func (s storeSite) Organization() string              { return "" }
func (s storeSite) Defaults(string) metadata.Defaults { return nil }

// waitForHistory waits until the store's history holds n records: bbolt
// moves an import's bindings into the history in the background.
func waitForHistory(b *testing.B, st store.Store, n int) {
	b.Helper()
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		count := 0
		if err := st.Changes(context.Background(), store.ChangesQuery{}, func(*store.Change) error { count++; return nil }); err != nil {
			b.Fatal(err)
		}
		if count == n {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("the history holds %d records of %d", count, n)
		}
	}
}

// BenchmarkAnonymousScans measures what an anonymous client costs the
// provider with the requests that read the whole store: ListSets, and a
// list of a set no record is in, on a bbolt store of 10^5 identifiers
// (imported once, one history record each once bbolt has merged the
// import).
//
//	go test ./oai -run '^$' -bench AnonymousScans -benchmem
func BenchmarkAnonymousScans(b *testing.B) {
	const n = 100000
	st := &boltstore.Store{Path: filepath.Join(b.TempDir(), "ark.db")}
	if err := st.Provision(caddy.Context{}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Cleanup() })
	i := 0
	if _, err := st.Import(context.Background(), func() (*store.Binding, error) {
		if i == n {
			return nil, io.EOF
		}
		i++
		return &store.Binding{Key: fmt.Sprintf("ark:12345/x5%07d", i), Target: fmt.Sprintf("https://repo.example.org/%d", i), Status: http.StatusFound}, nil
	}, "bench"); err != nil {
		b.Fatal(err)
	}
	waitForHistory(b, st, n)
	c := &oai.Config{Path: "/oai", AdminEmail: []string{"admin@example.org"}, TokenSecret: "a-benchmark-secret-of-the-tokens"}
	if err := c.Provision(caddy.Context{Context: context.Background()}); err != nil {
		b.Fatal(err)
	}
	site := storeSite{st}
	for _, q := range []struct{ name, query, want string }{
		{"ListSets", "verb=ListSets", "<setSpec>ark:12345:x5</setSpec>"},
		{"UnusedSet", "verb=ListIdentifiers&metadataPrefix=oai_dc&set=ark:99999", `code="noRecordsMatch"`},
	} {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				w := httptest.NewRecorder()
				if err := c.Serve(w, httptest.NewRequest(http.MethodGet, "/oai?"+q.query, nil), site); err != nil {
					b.Fatal(err)
				}
				if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), q.want) {
					b.Fatalf("%s: %d %s", q.query, w.Code, w.Body.String())
				}
			}
		})
	}
}
