package ark

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

// The keys of the API test sites, by name: each key's secret is its name
// followed by "-secret".
const apiKeys = `
		key editor %editor write:ark:12345 write:urn:isbn
		key reader %reader read:ark:12345
		key x5 %x5 write:ark:12345/x5`

// apiSite is a site with the API under /api/ark and a bbolt store in a
// temporary directory.
type apiSite struct {
	*site
	db    string // the store's file
	table string // the table file, which assigns ark:12345/t1
}

// startAPISite starts an apiSite; more goes inside the ark block.
func startAPISite(t *testing.T, more string) *apiSite {
	t.Helper()
	s := &apiSite{
		db:    filepath.Join(t.TempDir(), "ark.db"),
		table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}}),
	}
	s.site = startSite(t, apiSiteBody(s.db, s.table, more))
	return s
}

// apiSiteBody is the site block of an apiSite.
func apiSiteBody(db, tablePath, more string) string {
	keys := apiKeys
	for _, name := range []string{"editor", "reader", "x5"} {
		keys = strings.Replace(keys, "%"+name, keyHash(name+"-secret"), 1)
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

// keyHash is the SHA-256 hash of key in hexadecimal.
func keyHash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// call sends an API request with key (the name of a test key, "" for
// none) and body, with header's fields.
func (s *apiSite) call(method, path, key, body string, header ...string) answer {
	s.t.Helper()
	req, err := http.NewRequest(method, s.base+"/api/ark"+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key+"-secret")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return answer{status: resp.StatusCode, location: resp.Header.Get("Location"), body: string(data), header: resp.Header}
}

// apiRecord is GET id/<id> as seen by the editor.
type apiRecord struct {
	Binding *store.Binding `json:"binding"`
	History []store.Change `json:"history"`
}

// lookup returns the binding and history of id, nil when the API has none.
func (s *apiSite) lookup(id string) *apiRecord {
	s.t.Helper()
	got := s.call("GET", "/id/"+id, "editor", "")
	if got.status == http.StatusNotFound {
		return nil
	}
	if got.status != http.StatusOK {
		s.t.Fatalf("GET id/%s: %d %s", id, got.status, got.body)
	}
	var r apiRecord
	if err := json.Unmarshal([]byte(got.body), &r); err != nil {
		s.t.Fatalf("GET id/%s: %v: %s", id, err, got.body)
	}
	return &r
}

// binding decodes an answer holding one binding.
func (a answer) binding(t *testing.T) *store.Binding {
	t.Helper()
	var b store.Binding
	if err := json.Unmarshal([]byte(a.body), &b); err != nil {
		t.Fatalf("%v: %s", err, a.body)
	}
	return &b
}

// expectUnbound fails unless the store has no binding for id.
func (s *apiSite) expectUnbound(id string) {
	s.t.Helper()
	if r := s.lookup(id); r != nil {
		s.t.Errorf("%s: bound after a refusal: %+v", id, r.Binding)
	}
}
