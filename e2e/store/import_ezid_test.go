package store

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/postgres"
	"github.com/caddy-ark/caddy-ark/table"
)

// gzipFile writes the gzip of the file at path into a temporary
// directory, named as EZID names its downloads (.gz added).
func gzipFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	out := filepath.Join(t.TempDir(), filepath.Base(path)+".gz")
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// The DataCite document of ezid-download.txt, as ANVL holds it (the XML
// format embeds it without its declaration).
const downloadDataCite = `<?xml version="1.0"?>` + "\n" + `<resource xmlns="http://datacite.org/schema/kernel-4"><identifier identifierType="ARK">12345/fk2b8c9d</identifier><creators><creator><creatorName>Example Museum</creatorName></creator></creators><titles><title>The moth collection</title></titles><publisher>Example Museum</publisher><publicationYear>2024</publicationYear><resourceType resourceTypeGeneral="Collection"/></resource>`

// EZID's three download formats, plain or gzip, each made a table by the
// command with every element kept under its own name (the CSV holds no
// whole-record datacite: EZID's CSV cannot ask for it); the reserved
// identifier is counted, left out of the table, which has no reserved
// state, and the unavailable one is a tombstone (410) with its reason.
// The tables resolve in a real Caddy.
func TestImportEZIDDownloads(t *testing.T) {
	public := map[string]string{"_created": "1714521600", "_owner": "apitest", "_ownergroup": "apitest", "_profile": "datacite",
		"_updated": "1714558830", "datacite": downloadDataCite, "datacite.title": "The moth collection",
		"dc.title": "Moths: 100% of them", "erc.who": "Example Museum"}
	unavailable := map[string]string{"_created": "1714694400", "_owner": "other", "_ownergroup": "apitest", "_profile": "dc",
		"_updated": "1714694401", "dc.creator": "Example Museum", "dc.title": "A photograph, withdrawn",
		"reason": "withdrawn at the rights holder's request"}
	skipped := "2 identifiers, 1 line skipped (1 reserved in EZID: a table has no reserved state; import into a store to keep it; --verbose lists them)"
	for _, c := range []struct {
		file, format, note string
		datacite           string // the whole-record datacite as it arrives
	}{
		{"testdata/import/ezid-download.txt", "anvl", "", downloadDataCite},
		{gzipFile(t, "testdata/import/ezid-download.txt"), "anvl", "", downloadDataCite},
		{"testdata/import/ezid-download.xml", "xml", "", strings.TrimPrefix(downloadDataCite, `<?xml version="1.0"?>`+"\n")},
		{gzipFile(t, "testdata/import/ezid-download.xml"), "xml", "", strings.TrimPrefix(downloadDataCite, `<?xml version="1.0"?>`+"\n")},
		{"testdata/import/ezid-download.csv", "csv", `:1: header row; columns left out (EZID computes them from the others): "_mappedTitle"` + "\n", ""},
	} {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			out, stderr, err := importTo(t, c.file)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			note := ""
			if c.note != "" {
				note = c.file + c.note
			}
			if want := note + c.file + " (" + c.format + "): " + skipped + ", written to " + out + "\n"; stderr != want {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr, want)
			}
			f, err := os.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got := map[string]table.Entry{}
			if _, err := table.NewReader(f).Each(func(e *table.Entry) error { got[e.ID] = *e; return nil }); err != nil {
				t.Fatal(err)
			}
			wantPublic := maps.Clone(public)
			if c.datacite == "" {
				delete(wantPublic, "datacite")
			} else {
				wantPublic["datacite"] = c.datacite
			}
			if e := got["ark:12345/fk2b8c9d"]; e.Target != "https://repo.example.org/b8c9d" || e.Status != 302 || !maps.Equal(e.Meta, wantPublic) {
				t.Errorf("public: %+v\nwant meta %q", e, wantPublic)
			}
			if e := got["ark:12345/fk2d3f4g"]; e.Status != 410 || !maps.Equal(e.Meta, unavailable) {
				t.Errorf("unavailable: %+v\nwant meta %q", e, unavailable)
			}
			if e, ok := got["ark:12345/fk2c1d2f"]; ok || len(got) != 2 {
				t.Errorf("reserved in a table: %+v, %d entries", e, len(got))
			}
			serveImported(t, out, map[string]expected{
				"/ark:12345/fk2b8c9d": {status: 302, location: "https://repo.example.org/b8c9d"},
				"/ark:12345/fk2c1d2f": {status: 404},
				"/ark:12345/fk2d3f4g": {status: 410},
			})
		})
	}
}

// A bad record of an EZID download is refused with the file, its line
// and the reason, and nothing is written.
func TestImportEZIDDownloadRefusals(t *testing.T) {
	for _, c := range []struct{ name, content, want string }{
		{"a.txt", ":: ark:/12345/r1\n_target: https://a.example.org/\n_status: public\n\n:: ark:/12345/r2\n_status: gone\n", ":5: ark:/12345/r2: _status: invalid identifier status"},
		{"b.txt", ":: ark:/12345/r1\n_target a.example.org\n", ":2: no colon in line"},
		{"c.xml", "<records><record identifier=\"ark:/12345/r1\"><element name=\"_target\">https://a.example.org/</element></record>\n<record identifier=\"ark:/12345/r2\"><item/></record></records>", ":2: <item> in a <record>"},
		{"d.xml", "<records><record identifier=\"ark:/12345/r1\"><element name=\"_created\">yesterday</element></record></records>", ":1: ark:/12345/r1: _created \"yesterday\": neither seconds since 1970"},
		{"e.txt", ":: ark:/99999/fk4r1\n_target: https://a.example.org/\n", ":1: id \"ark:/99999/fk4r1\": NAAN 99999 is reserved for invalid ARKs (test ARKs, as in an EZID download: --skip-test-arks leaves them out)"},
	} {
		path := testkit.WriteFile(t, c.name, c.content)
		out, stderr, err := importTo(t, path)
		if err == nil || !strings.Contains(stderr, path+c.want) {
			t.Errorf("%s: %v\n%s\nwant %s%s", c.name, err, stderr, path, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: a table was written", c.name)
		}
	}
}

// expectEZIDInStore checks the identifiers of ezid-download.txt in a
// store: the reserved one stays reserved (Status 0, its target and
// metadata kept), the unavailable one keeps its target with EZID's
// _status, and the public one is bound with its elements.
func expectEZIDInStore(t *testing.T, lookup func(key string) *store.Binding, wholeDataCite bool) {
	t.Helper()
	if b := lookup("ark:12345/fk2c1d2f"); b == nil || b.Status != 0 || b.Target != "https://repo.example.org/c1d2f" ||
		b.Meta["_export"] != "no" || b.Meta["_owner"] != "apitest" || b.Meta["erc.what"] == "" {
		t.Errorf("reserved: %+v", b)
	}
	if b := lookup("ark:12345/fk2d3f4g"); b == nil || b.Target != "https://repo.example.org/d3f4g" {
		t.Errorf("unavailable: %+v", b)
	} else if reason, ok := b.Unavailable(); !ok || reason != "withdrawn at the rights holder's request" {
		t.Errorf("unavailable: %+v", b)
	}
	if b := lookup("ark:12345/fk2b8c9d"); b == nil || b.Status != 302 || b.Meta["dc.title"] != "Moths: 100% of them" || strings.Contains(b.Meta["datacite"], "<resource") != wholeDataCite {
		t.Errorf("public: %+v", b)
	}
}

// Imported into a store, an EZID reserved identifier stays reserved: on
// bbolt and on PostgreSQL through the API's import of a real Caddy (a
// gzip download as EZID serves it), and through `caddy ark import
// --postgres`. It does not resolve; importing again adds nothing; a bad
// record keeps nothing of its download.
func TestImportEZIDReservedStaysReservedInAStore(t *testing.T) {
	anvl, _ := os.ReadFile(gzipFile(t, "testdata/import/ezid-download.txt"))
	caddytest.OnBothStores(t, func(t *testing.T, s *caddytest.APISite, _ string) {
		if got := s.Call("POST", "/import?format=anvl", "editor", string(anvl)); got.Status != http.StatusOK || !imported(got.Body, 3, 3) {
			t.Fatalf("import: %d %s", got.Status, got.Body)
		}
		expectEZIDInStore(t, func(key string) *store.Binding {
			if r := s.Lookup(key); r != nil {
				return r.Binding
			}
			return nil
		}, true)
		if got := s.Get("/ark:12345/fk2c1d2f"); got.Status != http.StatusNotFound {
			t.Errorf("a reserved identifier resolves: %d %s", got.Status, got.Location)
		}
		if got := s.Get("/ark:12345/fk2b8c9d"); got.Status != http.StatusFound || got.Location != "https://repo.example.org/b8c9d" {
			t.Errorf("public: %d %s", got.Status, got.Location)
		}
		if got := s.Call("POST", "/import?format=anvl", "editor", string(anvl)); got.Status != http.StatusOK || !imported(got.Body, 3, 0) {
			t.Errorf("the same records again: %d %s", got.Status, got.Body)
		}
		bad := ":: ark:/12345/new1\n_target: https://a.example.org/1\n\n:: ark:/12345/new2\n_status: gone\n"
		if got := s.Call("POST", "/import?format=anvl", "editor", bad); got.Status != http.StatusBadRequest || !strings.Contains(got.Body, "body:4: ark:/12345/new2: _status: invalid identifier status") {
			t.Errorf("a bad record: %d %s", got.Status, got.Body)
		}
		s.ExpectUnbound("ark:12345/new1")
		if got := s.Call("POST", "/import?format=anvl", "x5", string(anvl)); got.Status != http.StatusForbidden {
			t.Errorf("out of the key's scope: %d %s", got.Status, got.Body)
		}
		if got := s.Call("POST", "/import?format=csv", "editor", "id,target\nark:12345/p1,https://p.example.org/\n"); got.Status != http.StatusOK || !imported(got.Body, 1, 1) {
			t.Errorf("a plain CSV through the API: %d %s", got.Status, got.Body)
		}
		if got := s.Call("POST", "/import?format=pdf", "editor", string(anvl)); got.Status != http.StatusBadRequest || !strings.Contains(got.Body, `pdf\": give json`) {
			t.Errorf("an unknown format: %d %s", got.Status, got.Body)
		}
	})

	dsn := testkit.SharedPostgres(t).CreateDB(t)
	for schema, file := range map[string]string{"ezidcsv": "testdata/import/ezid-download.csv", "ezidxml": "testdata/import/ezid-download.xml"} {
		if _, stderr, err := caddytest.RunArkCommand(t, "", "import", "--postgres", dsn, "--schema", schema, file); err != nil ||
			!strings.Contains(stderr, "3 identifiers (1 reserved in EZID, kept reserved: not resolved, never minted again)") {
			t.Fatalf("%s: %v\n%s", file, err, stderr)
		}
		st, err := postgres.Open(dsn, schema)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Destruct()
		expectEZIDInStore(t, func(key string) *store.Binding {
			got, err := st.Lookup(context.Background(), []string{key})
			if err != nil {
				t.Fatal(err)
			}
			return got[0]
		}, schema == "ezidxml")
	}
}

// imported reports whether body is POST import's answer with entries and
// imported.
func imported(body string, entries, n int) bool {
	var r struct{ Entries, Imported int }
	return json.Unmarshal([]byte(body), &r) == nil && r.Entries == entries && r.Imported == n
}
