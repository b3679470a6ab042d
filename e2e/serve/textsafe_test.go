package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// A right-to-left override (U+202E) or another invisible control in a
// target or metadata value, from a table file, the Caddyfile or a store
// written before the API refused such targets (api_invisible_test.go),
// never leaves raw: Location is percent-encoded ASCII, and ?info shows
// each such character visibly, escaped in ANVL and JSON, marked and
// isolated in HTML (issue 20, item 9).
func TestInvisibleCharactersLeaveVisibly(t *testing.T) {
	meta := map[string]string{"what": "Invoice\u202Efdp.exe", "who": "A\u200Bdmin", "note": "x\u2066y\u2069z\u0085\u007f"}
	table := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/v1", Target: "https://repo.example.org/\u202Egpj.exe", Meta: meta}})
	s := &caddytest.APISite{DB: t.TempDir() + "/ark.db", Table: table}
	caddytest.StoreAsBefore(t, s.DB, store.Binding{Key: "ark:12345/x5v3", Target: "https://repo.example.org/\u202Egpj.exe", Status: http.StatusFound, Meta: meta})
	s.Site = caddytest.StartSite(t, caddytest.APISiteBody(s.DB, s.Table, "map ark:12345/v2 https://repo.example.org/\u202Egpj.exe"))
	raw := func(s string) bool {
		return strings.ContainsFunc(s, func(c rune) bool { return c == '\u202E' || c == '\u200B' || c == '\u2066' || c == 0x85 || c == 0x7f })
	}
	for _, id := range []string{"ark:12345/v1", "ark:12345/v2", "ark:12345/x5v3"} {
		got := s.Get("/" + id)
		if got.Status != http.StatusFound || got.Location != "https://repo.example.org/%E2%80%AEgpj.exe" {
			t.Errorf("%s: %d Location %q, want it percent-encoded", id, got.Status, got.Location)
		}
		withMeta := id != "ark:12345/v2"
		anvl := s.Get("/" + id + "?info")
		if raw(anvl.Body) || !strings.Contains(anvl.Body, "\ntarget: https://repo.example.org/%E2%80%AEgpj.exe\n") ||
			withMeta && (!strings.Contains(anvl.Body, "\nwhat: Invoice%E2%80%AEfdp.exe\n") || !strings.Contains(anvl.Body, "\nwho: A%E2%80%8Bdmin\n") ||
				!strings.Contains(anvl.Body, "\nnote: x%E2%81%A6y%E2%81%A9z%C2%85%7F\n")) {
			t.Errorf("%s?info, ANVL:\n%s", id, anvl.Body)
		}
		js := s.Do("GET", "/"+id+"?info", caddytest.AcceptJSON)
		if raw(js.Body) || !utf8.ValidString(js.Body) || !strings.Contains(js.Body, `"target": "https://repo.example.org/\u202Egpj.exe"`) ||
			withMeta && (!strings.Contains(js.Body, `"what": "Invoice\u202Efdp.exe"`) || !strings.Contains(js.Body, `"note": "x\u2066y\u2069z\u0085\u007F"`)) {
			t.Errorf("%s?info, JSON:\n%s", id, js.Body)
		}
		var rec struct{ Target string }
		if err := json.Unmarshal([]byte(js.Body), &rec); err != nil || rec.Target != "https://repo.example.org/\u202Egpj.exe" {
			t.Errorf("%s?info, JSON: the target reads back as %q (%v)", id, rec.Target, err)
		}
		page := s.Do("GET", "/"+id+"?info", caddytest.AcceptHTML)
		if raw(page.Body) || !strings.Contains(page.Body, `<bdi>https://repo.example.org/<span class="ctl">U+202E</span>gpj.exe</bdi>`) ||
			withMeta && (!strings.Contains(page.Body, `<h1><bdi>Invoice<span class="ctl">U+202E</span>fdp.exe</bdi></h1>`) ||
				!strings.Contains(page.Body, `<title>Invoice[U&#43;202E]fdp.exe (`+id+`)</title>`) ||
				!strings.Contains(page.Body, `<bdi>A<span class="ctl">U+200B</span>dmin</bdi>`)) {
			t.Errorf("%s?info, HTML:\n%s", id, page.Body)
		}
	}
}
