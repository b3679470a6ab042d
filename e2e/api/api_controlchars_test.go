package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// TestAPIRefusesControlCharactersOnBolt and ...OnPostgres: a NUL, or
// another control character but tab, line feed and carriage return, in
// metadata, a withdrawal reason or a key's label is a bad request on
// either store alike, refused before the store with the reason, and
// changes nothing (issue 36, item 6: PostgreSQL answered 503, bbolt kept
// it).
func TestAPIRefusesControlCharactersOnBolt(t *testing.T) {
	s := &caddytest.APISite{DB: t.TempDir() + "/ark.db", Table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})}
	s.Site = caddytest.StartSite(t, caddytest.AdminKeys(caddytest.APISiteBody(s.DB, s.Table, "minter ark:12345/x8 .sdd")))
	checkControlCharacters(t, s)
}

func TestAPIRefusesControlCharactersOnPostgres(t *testing.T) {
	dsn := testkit.SharedPostgres(t).CreateDB(t)
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	body := strings.Replace(caddytest.AdminKeys(caddytest.APISiteBody("BOLT", tablePath, "minter ark:12345/x8 .sdd")), "store bolt BOLT", "store postgres "+dsn, 1)
	checkControlCharacters(t, &caddytest.APISite{Site: caddytest.StartSite(t, body), Table: tablePath})
}

func checkControlCharacters(t *testing.T, s *caddytest.APISite) {
	if got := s.Call("PUT", "/id/ark:12345/c1", "editor", `{"target": "https://repo.example.org/c1"}`); got.Status != http.StatusCreated {
		t.Fatalf("binding c1: %d %s", got.Status, got.Body)
	}
	state := func() string {
		t.Helper()
		var b strings.Builder
		for _, path := range []string{"/export", "/changes", "/keys"} {
			got := s.Call("GET", path, "boss", "")
			if got.Status != http.StatusOK {
				t.Fatalf("GET %s: %d %s", path, got.Status, got.Body)
			}
			b.WriteString(got.Body)
		}
		return b.String()
	}
	before := state()
	for _, c := range []struct {
		what, method, path, key, body, reason string
	}{
		{"PUT, a NUL in a value", "PUT", "/id/ark:12345/c2", "editor", `{"target": "https://repo.example.org/c2", "meta": {"title": "a\u0000b"}}`, `ark:12345/c2: meta \"title\" holds U+0000 at byte 1, a control character: remove it (tab, line feed and carriage return are allowed)`},
		{"PUT, an escape in a value", "PUT", "/id/ark:12345/c2", "editor", `{"target": "https://repo.example.org/c2", "meta": {"title": "\u001b[31mred"}}`, "holds U+001B at byte 0"},
		{"PUT, a DEL in a value", "PUT", "/id/ark:12345/c2", "editor", `{"target": "https://repo.example.org/c2", "meta": {"title": "x\u007f"}}`, "holds U+007F at byte 1"},
		{"PUT, a NUL in a name", "PUT", "/id/ark:12345/c2", "editor", `{"target": "https://repo.example.org/c2", "meta": {"ti\u0000tle": "x"}}`, "a meta name holds U+0000 at byte 2, a control character: remove it"},
		{"PUT, a line feed in a name", "PUT", "/id/ark:12345/c2", "editor", `{"target": "https://repo.example.org/c2", "meta": {"ti\ntle": "x"}}`, "a meta name holds U+000A"},
		{"PATCH", "PATCH", "/id/ark:12345/c1", "editor", `{"meta": {"note": "\u0000"}}`, "ark:12345/c1: meta \\\"note\\\" holds U+0000"},
		{"withdraw", "POST", "/withdraw/ark:12345/c1", "editor", `{"reason": "gone\u0000"}`, "ark:12345/c1: the reason holds U+0000 at byte 4"},
		{"withdraw, a bell", "POST", "/withdraw/ark:12345/c1", "editor", `{"reason": "gone\u0007"}`, "the reason holds U+0007"},
		{"import", "POST", "/import", "editor", `{"entries": [{"id": "ark:12345/c3", "target": "https://repo.example.org/c3", "meta": {"t": "\u0000"}}]}`, "ark:12345/c3: meta \\\"t\\\" holds U+0000"},
		{"import, a withdrawn entry's reason", "POST", "/import", "editor", `{"entries": [{"id": "ark:12345/c3", "target": "https://repo.example.org/c3", "status": 410, "meta": {"reason": "x\u0000"}}]}`, "holds U+0000"},
		{"mint", "POST", "/mint/ark:12345/x8", "editor", `{"target": "https://repo.example.org/{id}", "meta": {"t": "\u0000"}}`, "holds U+0000"},
		{"a key's label", "POST", "/keys", "boss", `{"name": "scanner", "scopes": ["read:ark:12345"], "label": "the \u0000 room"}`, "key scanner: the label holds U+0000 at byte 4, a control character: remove it"},
		{"a key's label, a line feed", "POST", "/keys", "boss", `{"name": "scanner", "scopes": ["read:ark:12345"], "label": "the\nroom"}`, "the label holds U+000A"},
	} {
		got := s.Call(c.method, c.path, c.key, c.body)
		if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, c.reason) {
			t.Errorf("%s: %d %s, want 400 with %q", c.what, got.Status, got.Body, c.reason)
		}
	}
	got := s.Call("POST", "/bulk", "editor", `{"op": "bind", "id": "ark:12345/c4", "target": "https://repo.example.org/c4", "meta": {"t": "\u0000"}}`+"\n"+`{"op": "withdraw", "id": "ark:12345/c1", "reason": "\u0000"}`)
	for i, r := range caddytest.BulkResults(t, got) {
		if r.Status != http.StatusBadRequest || !strings.Contains(r.Error, "holds U+0000") {
			t.Errorf("bulk line %d: %+v, want 400, holds U+0000", i+1, r)
		}
	}
	if after := state(); after != before {
		t.Errorf("refused writes changed the store:\nbefore: %s\nafter: %s", before, after)
	}

	// Tab, line feed and carriage return are text, kept as they are.
	text := "line one\r\nline two\tand a tab"
	if got := s.Call("PUT", "/id/ark:12345/c5", "editor", `{"target": "https://repo.example.org/c5", "meta": {"abstract": "line one\r\nline two\tand a tab"}}`); got.Status != http.StatusCreated {
		t.Fatalf("a multi-line value: %d %s", got.Status, got.Body)
	}
	if got := s.Lookup("ark:12345/c5").Binding.Meta["abstract"]; got != text {
		t.Errorf("the multi-line value reads back %q, want %q", got, text)
	}
	if got := s.Call("POST", "/withdraw/ark:12345/c5", "editor", `{"reason": "merged into c1;\nsee there"}`); got.Status != http.StatusOK {
		t.Errorf("a two-line reason: %d %s", got.Status, got.Body)
	}
}
