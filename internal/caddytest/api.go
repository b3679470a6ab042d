package caddytest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// APIKeys are the keys of the API test sites, by name: each key's secret
// is its name followed by "-secret".
const APIKeys = `
		key editor %editor write:ark:12345 write:urn:isbn
		key reader %reader read:ark:12345
		key x5 %x5 write:ark:12345/x5`

// APISite is a site with the API under /api/ark and a bbolt store in a
// temporary directory.
type APISite struct {
	*Site
	// DB is the store's file.
	DB string
	// Table is the table file, which assigns ark:12345/t1.
	Table string
	// PID is the caddy process's when StartNode started it, else 0: a
	// test may stop and continue it (SIGSTOP, SIGCONT).
	PID int
}

// StartAPISite starts an APISite; more goes inside the ark block.
func StartAPISite(t *testing.T, more string) *APISite {
	t.Helper()
	s := &APISite{
		DB:    filepath.Join(t.TempDir(), "ark.db"),
		Table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}}),
	}
	s.Site = StartSite(t, APISiteBody(s.DB, s.Table, more))
	return s
}

// OnBothStores runs test as two subtests, "bbolt" and "postgresql", each
// with an APISite of its own: StartAPISite's, and one whose store is a
// new database of the shared PostgreSQL cluster (PGSiteBody). config is
// the site's configuration, for a test that loads it again.
func OnBothStores(t *testing.T, test func(t *testing.T, s *APISite, config string)) {
	t.Run("bbolt", func(t *testing.T) {
		s := StartAPISite(t, "")
		test(t, s, APISiteBody(s.DB, s.Table, ""))
	})
	t.Run("postgresql", func(t *testing.T) {
		tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
		config := PGSiteBody(testkit.SharedPostgres(t).CreateDB(t), tablePath)
		test(t, &APISite{Site: StartSite(t, config), Table: tablePath}, config)
	})
}

// APISiteBody is the site block of an APISite.
func APISiteBody(db, tablePath, more string) string {
	keys := APIKeys
	for _, name := range []string{"editor", "reader", "x5"} {
		keys = strings.Replace(keys, "%"+name, KeyHash(name+"-secret"), 1)
	}
	return `
	ark {
		naan 12345
		table ` + tablePath + `
		store bolt ` + db + `
		api /api/ark {` + keys + `
		}
		` + more + `
	}
	respond "not the API" 418`
}

// KeyHash is the SHA-256 hash of key in hexadecimal.
func KeyHash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// Call sends an API request with key (the name of a test key, "" for
// none) and body, with header's fields.
func (s *APISite) Call(method, path, key, body string, header ...string) Answer {
	s.T.Helper()
	req, err := http.NewRequest(method, s.Base+"/api/ark"+path, strings.NewReader(body))
	if err != nil {
		s.T.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key+"-secret")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := Client.Do(req)
	if err != nil {
		s.T.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		s.T.Fatal(err)
	}
	return Answer{Status: resp.StatusCode, Location: resp.Header.Get("Location"), Body: string(data), Header: resp.Header}
}

// APIRecord is GET id/<id> as seen by the editor.
type APIRecord struct {
	// Binding is the identifier's binding.
	Binding *store.Binding `json:"binding"`
	// History is its changes, oldest first.
	History []store.Change `json:"history"`
}

// Lookup returns the binding and history of id, nil when the API has none.
func (s *APISite) Lookup(id string) *APIRecord {
	s.T.Helper()
	got := s.Call("GET", "/id/"+id, "editor", "")
	if got.Status == http.StatusNotFound {
		return nil
	}
	if got.Status != http.StatusOK {
		s.T.Fatalf("GET id/%s: %d %s", id, got.Status, got.Body)
	}
	var r APIRecord
	if err := json.Unmarshal([]byte(got.Body), &r); err != nil {
		s.T.Fatalf("GET id/%s: %v: %s", id, err, got.Body)
	}
	return &r
}

// Binding decodes an answer holding one binding.
func (a Answer) Binding(t *testing.T) *store.Binding {
	t.Helper()
	var b store.Binding
	if err := json.Unmarshal([]byte(a.Body), &b); err != nil {
		t.Fatalf("%v: %s", err, a.Body)
	}
	return &b
}

// ExpectUnbound fails unless the store has no binding for id.
func (s *APISite) ExpectUnbound(id string) {
	s.T.Helper()
	if r := s.Lookup(id); r != nil {
		s.T.Errorf("%s: bound after a refusal: %+v", id, r.Binding)
	}
}
