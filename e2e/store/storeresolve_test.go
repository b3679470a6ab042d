package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/mint"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddy-ark/caddy-ark/store/storetest"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddyserver/caddy/v2"
)

// storeSite starts a site whose ark handler reads table (a path, or "")
// and the bolt store at a new file, and returns the site and the store,
// opened on the same file as the handler (they share one open database).
func storeSite(t *testing.T, extra string, entries []table.Entry) (*caddytest.Site, *bolt.Store) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "store.db")
	body := "\tark {\n\t\tnaan 12345\n\t\tforeign 404\n\t\tstore bolt " + path + "\n" + extra
	if entries != nil {
		body += "\t\ttable " + testkit.WriteTable(t, entries) + "\n"
	}
	s := caddytest.StartSite(t, body+"\t}\n\trespond \"next handler\" 200\n")
	return s, testkit.Provision(t, &bolt.Store{Path: path})
}

func TestStoreResolution(t *testing.T) {
	s, st := storeSite(t, "", []table.Entry{
		{ID: "ark:12345/t1", Target: "https://example.org/table/t1"},
		{ID: "ark:12345/shelf", Target: "https://example.org/shelf"},
	})
	ctx := context.Background()
	put := func(b store.Binding) *store.Binding {
		return storetest.MustApply(t, st, store.Write{Binding: b, By: "test"})
	}

	if got := s.Get("/ark:12345/s1"); got.Status != 404 {
		t.Fatalf("before binding: %d %q, want 404", got.Status, got.Body)
	}
	put(store.Binding{Key: "ark:12345/s1", Target: "https://example.org/one", Status: 302, Passthrough: true})
	// Every request after the bind sees it, in any spelling, though the
	// 404 was asked twice (and cached) before.
	s.ExpectRedirects(map[string]string{
		"/ark:12345/s1":          "https://example.org/one",
		"/ark:/12345/s-1":        "https://example.org/one",
		"/ark:12345/s1/c2.pdf":   "https://example.org/one/c2.pdf",
		"/ark:12345/s1?format=x": "https://example.org/one?format=x",
	})
	for range 3 {
		put(store.Binding{Key: "ark:12345/s1", Target: "https://example.org/two", Status: 302, Passthrough: true})
		s.ExpectRedirects(map[string]string{"/ark:12345/s1": "https://example.org/two", "/ark:12345/s1/c2.pdf": "https://example.org/two/c2.pdf"})
		put(store.Binding{Key: "ark:12345/s1", Target: "https://example.org/one", Status: 302, Passthrough: true})
		s.ExpectRedirects(map[string]string{"/ark:12345/s1": "https://example.org/one", "/ark:12345/s1/c2.pdf": "https://example.org/one/c2.pdf"})
	}

	// Without passthrough, descendants are the binding's own: 404.
	put(store.Binding{Key: "ark:12345/s2", Target: "/served.html", Status: 200})
	if got := s.Get("/ark:12345/s2/c2"); got.Status != 404 {
		t.Errorf("descendant of a binding without passthrough: %d, want 404", got.Status)
	}
	if got := s.Get("/ark:12345/s2"); got.Status != 200 || got.Body != "next handler" {
		t.Errorf("a binding served in place: %d %q", got.Status, got.Body)
	}

	// The table is read first: a store binding of a table's key is not
	// seen, but one nearer than the table's ancestor is.
	put(store.Binding{Key: "ark:12345/t1", Target: "https://example.org/store/t1", Status: 302})
	put(store.Binding{Key: "ark:12345/shelf/b7", Target: "https://example.org/store/b7", Status: 303})
	s.ExpectRedirects(map[string]string{
		"/ark:12345/t1":       "https://example.org/table/t1",
		"/ark:12345/shelf":    "https://example.org/shelf",
		"/ark:12345/shelf/b8": "https://example.org/shelf/b8",
	})
	if got := s.Get("/ark:12345/shelf/b7"); got.Status != 303 || got.Location != "https://example.org/store/b7" {
		t.Errorf("store binding under a table ancestor: %d %q", got.Status, got.Location)
	}

	// A minted name without a target says so.
	if _, err := st.Reserve(ctx, []store.Binding{{Key: "ark:12345/m1"}}, "minter"); err != nil {
		t.Fatal(err)
	}
	if got := s.Get("/ark:12345/m1"); got.Status != 404 || !strings.Contains(got.Body, "minted but not bound") {
		t.Errorf("a minted name: %d %q", got.Status, got.Body)
	}

	// Withdrawn: 410, with the reason in ?info.
	put(store.Binding{Key: "ark:12345/s1", Status: 410, Reason: "a duplicate of ark:12345/s2"})
	if got := s.Get("/ark:12345/s1"); got.Status != 410 {
		t.Errorf("withdrawn: %d %q, want 410", got.Status, got.Body)
	}
	if got := s.Get("/ark:12345/s1?info"); got.Status != 200 || !strings.Contains(got.Body, "a duplicate of ark:12345/s2") {
		t.Errorf("?info of a withdrawn binding: %d %q", got.Status, got.Body)
	}

	// A URN in the store.
	put(store.Binding{Key: "urn:isbn:9780000000001", Target: "https://example.org/book", Status: 302})
	s.ExpectRedirects(map[string]string{"/urn:isbn:9780000000001": "https://example.org/book"})
}

func TestStoreUnavailable(t *testing.T) {
	s, st := storeSite(t, "", []table.Entry{{ID: "ark:12345/t1", Target: "https://example.org/t1"}})
	storetest.MustApply(t, st, store.Write{Binding: store.Binding{Key: "ark:12345/s1", Target: "https://example.org/s1", Status: 302}, By: "test"})
	s.ExpectRedirects(map[string]string{"/ark:12345/s1": "https://example.org/s1"})
	if err := st.DB().Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/ark:12345/never-bound", "/ark:12345/never-bound?info", "/urn:isbn:1"} {
		got := s.Get(p)
		if got.Status != 503 || got.Header.Get("Retry-After") == "" || !strings.Contains(got.Body, "store is unavailable") {
			t.Errorf("%s with the store closed: %d %q (Retry-After %q), want 503 with Retry-After",
				p, got.Status, got.Body, got.Header.Get("Retry-After"))
		}
	}
	// The tables keep answering.
	s.ExpectRedirects(map[string]string{"/ark:12345/t1": "https://example.org/t1"})
}

func TestCheckCharacter(t *testing.T) {
	s, st := storeSite(t, "\t\tminter ark:12345/x5 .reeddeedk\n", nil)
	good := "x54xz321"
	good += string(mint.NCDA("12345/" + good))
	wrong := good[:len(good)-1] + string(mint.Betanumeric[(strings.IndexByte(mint.Betanumeric, good[len(good)-1])+1)%len(mint.Betanumeric)])
	if got := s.Get("/ark:12345/" + wrong); got.Status != 404 || !strings.Contains(got.Body, "check character does not match") {
		t.Errorf("a wrong check character: %d %q", got.Status, got.Body)
	}
	if got := s.Get("/ark:12345/" + good); got.Status != 404 || strings.Contains(got.Body, "check character") {
		t.Errorf("a right check character, not bound: %d %q", got.Status, got.Body)
	}
	storetest.MustApply(t, st, store.Write{Binding: store.Binding{Key: "ark:12345/" + good, Target: "https://example.org/g", Status: 302}, By: "test"})
	s.ExpectRedirects(map[string]string{"/ark:12345/" + good: "https://example.org/g"})
}

// TestStoreReload: a reload keeping the store file shares the open
// database (bbolt locks its file: a second open would wait for the lock
// the running config holds), and a bad config leaves the store serving.
func TestStoreReload(t *testing.T) {
	dir := t.TempDir()
	body := "\tark {\n\t\tnaan 12345\n\t\tstore bolt store.db\n\t}\n"
	s := &caddytest.Site{T: t}
	caddyfile := filepath.Join(dir, "Caddyfile")
	load := func(body string) error {
		port := strings.TrimPrefix(s.Base, "http://127.0.0.1:")
		cfg, err := caddytest.AdaptCaddyfile(caddytest.GlobalOptions+"\n:"+port+" {\n\tbind 127.0.0.1\n"+body+"\n}\n", caddyfile)
		if err != nil {
			return err
		}
		return caddytest.LoadConfig(cfg, true)
	}
	s.Base = "http://127.0.0.1:" + strconv.Itoa(caddytest.FreePort(t))
	if err := load(body); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = caddy.Stop() })
	// The relative path is the Caddyfile's: the test opens the same file.
	st := testkit.Provision(t, &bolt.Store{Path: filepath.Join(dir, "store.db")})
	storetest.MustApply(t, st, store.Write{Binding: store.Binding{Key: "ark:12345/r1", Target: "https://example.org/r1", Status: 302}, By: "test"})
	for i := range 3 {
		if err := load(body + fmt.Sprintf("\t# reload %d\n", i)); err != nil {
			t.Fatalf("reload %d: %v", i, err)
		}
		s.ExpectRedirects(map[string]string{"/ark:12345/r1": "https://example.org/r1"})
	}
	if err := load("\tark {\n\t\tstore bolt store.db\n\t\tminter ark:12345/x .q\n\t}\n"); err == nil {
		t.Fatal("a bad minter template was accepted")
	}
	storetest.MustApply(t, st, store.Write{Binding: store.Binding{Key: "ark:12345/r1", Target: "https://example.org/r2", Status: 302}, By: "test"})
	s.ExpectRedirects(map[string]string{"/ark:12345/r1": "https://example.org/r2"})
}
