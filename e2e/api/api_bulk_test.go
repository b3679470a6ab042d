package api

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

func TestAPIBulkPartialFailure(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	s.Call("PUT", "/id/ark:12345/x5gone", "editor", `{"target": "/x"}`)
	s.Call("POST", "/withdraw/ark:12345/x5gone", "editor", `{"reason": "r"}`)
	in := strings.Join([]string{
		`{"op": "bind", "id": "ark:/12345/x5-b1", "target": "https://repo.example.org/b1"}`,
		`{"op": "bind", "id": "ark:12345/x5b2", "target": "https://repo.example.org/b2", "status": 301}`,
		`not json`,
		``,
		`{"op": "bind", "id": "ark:67890/x5b3", "target": "/b3"}`,
		`{"op": "bind", "id": "urn:nbn:de:b3", "target": "/b3"}`,
		`{"op": "bind", "id": "ark:12345/t1", "target": "/b4"}`,
		`{"op": "bind", "id": "ark:12345/x5gone", "target": "/b5"}`,
		`{"op": "delete", "id": "ark:12345/x5b1"}`,
		`{"op": "bind", "id": "ark:12345/x5b1", "target": "https://repo.example.org/b1v2"}`,
		`{"op": "withdraw", "id": "ark:12345/x5b6", "reason": "never used"}`,
		`{"op": "bind", "id": "ark:12345/x5b7", "target": "/` + strings.Repeat("x", api.MaxBulkLine) + `"}`,
		`{"op": "bind", "id": "ark:12345/x5b8", "target": "https://repo.example.org/b8"}`,
	}, "\n")
	results := caddytest.BulkResults(t, s.Call("POST", "/bulk", "editor", in))
	want := []struct {
		line, status int
		reason       string
	}{{1, 201, ""}, {2, 400, "permanent"}, {3, 400, "JSON"}, {5, 400, "not this site's"}, {6, 403, "may not write"}, {7, 409, s.Table},
		{8, 409, "withdrawn"}, {9, 400, "op"}, {10, 200, ""}, {11, 201, ""}, {12, 413, "longer than"}, {13, 201, ""}}
	if len(results) != len(want) {
		t.Fatalf("%d result lines for %d non-blank input lines: %+v", len(results), len(want), results)
	}
	for i, w := range want {
		if r := results[i]; r.Line != w.line || r.Status != w.status || !strings.Contains(r.Error, w.reason) || (w.reason == "") != (r.Error == "") {
			t.Errorf("result %d: %+v, want line %d, %d %q", i, r, w.line, w.status, w.reason)
		}
	}
	s.ExpectRedirects(map[string]string{"/ark:12345/x5b1": "https://repo.example.org/b1v2", "/ark:12345/x5b8": "https://repo.example.org/b8"})
	for _, id := range []string{"ark:12345/x5b2", "ark:12345/x5b7"} {
		s.ExpectUnbound(id)
	}
	if r := s.Lookup("ark:12345/x5b1"); r.Binding.Version != 2 || r.History[1].By != "editor" {
		t.Errorf("x5b1: %+v", r.Binding)
	}
	if got := s.Get("/ark:12345/x5b6"); got.Status != http.StatusGone {
		t.Errorf("withdrawn in bulk: %d", got.Status)
	}
}

func TestAPIBulkBodyBound(t *testing.T) {
	s2 := &caddytest.APISite{DB: filepath.Join(t.TempDir(), "ark.db"), Table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "/t1"}})}
	s2.Site = caddytest.StartSite(t, strings.Replace(caddytest.APISiteBody(s2.DB, s2.Table, ""), "api /api/ark {", "api /api/ark {\n\t\t\tmax_body 200", 1))
	line := `{"op": "bind", "id": "ark:12345/x5c1", "target": "https://repo.example.org/c"}` + "\n"
	got := s2.Call("POST", "/bulk", "editor", line+line+line)
	if got.Status != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over max_body: %d %s", got.Status, got.Body)
	}
	s2.ExpectUnbound("ark:12345/x5c1")
}

func TestAPIExportImport(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	s.Call("PUT", "/id/ark:12345/x5e1", "editor", `{"target": "https://repo.example.org/e1", "status": 307, "meta": {"who": "W"}}`)
	s.Call("PUT", "/id/ark:12345/e2", "editor", `{"target": "/objects/e2.html", "passthrough": false}`)
	s.Call("POST", "/withdraw/ark:12345/x5e3", "editor", `{"reason": "Gone for good"}`)
	got := s.Call("GET", "/export", "editor", "")
	if got.Status != http.StatusOK {
		t.Fatalf("export: %d %s", got.Status, got.Body)
	}
	exported := testkit.WriteFile(t, "export.json", got.Body)
	tbl, err := table.Load([]string{exported}, nil)
	if err != nil || tbl.Len() != 3 {
		t.Fatalf("the export does not load as a table: %v\n%s", err, got.Body)
	}
	if a, _ := tbl.Lookup("ark:12345/x5e1"); a.Status != 307 || a.Meta["who"] != "W" {
		t.Errorf("exported x5e1: %+v", a)
	}
	if a, _ := tbl.Lookup("ark:12345/e2"); a.Passthrough {
		t.Errorf("exported e2 passes through")
	}
	if a, _ := tbl.Lookup("ark:12345/x5e3"); a.Status != 410 || a.Meta[table.ReasonMeta] != "Gone for good" {
		t.Errorf("exported x5e3: %+v", a)
	}
	if got := s.Call("GET", "/export", "x5", ""); strings.Contains(got.Body, "ark:12345/e2") || !strings.Contains(got.Body, "ark:12345/x5e1") {
		t.Errorf("a shoulder's key exports more or less than its shoulder:\n%s", got.Body)
	}

	// Into a new store: the export, and it again (the same bindings are skipped).
	s2 := caddytest.StartAPISite(t, "")
	for i, want := range []int{3, 0} {
		got := s2.Call("POST", "/import", "editor", got.Body)
		var res struct{ Entries, Imported int }
		if err := json.Unmarshal([]byte(got.Body), &res); err != nil || got.Status != http.StatusOK || res.Entries != 3 || res.Imported != want {
			t.Errorf("import %d: %d %s", i, got.Status, got.Body)
		}
	}
	if r := s2.Lookup("ark:12345/x5e3"); r.Binding.Status != 410 || r.Binding.Reason != "Gone for good" || r.History[0].By != "editor" {
		t.Errorf("imported x5e3: %+v", r.Binding)
	}
	if got := s2.Get("/ark:12345/x5e1/a.pdf"); got.Status != 307 || got.Location != "https://repo.example.org/e1/a.pdf" {
		t.Errorf("an imported id's descendant: %d %q", got.Status, got.Location)
	}
	// One bad entry and nothing of the table is imported.
	for _, c := range []struct {
		table  string
		status int
		reason string
	}{
		{`{"entries": [{"id": "ark:12345/x5n1", "target": "/n1"}, {"id": "ark:12345/t1", "target": "/n2"}]}`, 409, "entry 1"},
		{`{"entries": [{"id": "ark:12345/x5n1", "target": "/n1"}, {"id": "ark:12345/x5e1", "target": "/other"}]}`, 409, "entry 1"},
		{`{"entries": [{"id": "ark:12345/x5n1", "target": "/n1"}, {"id": "ark:12345/x5n2", "target": "/n2", "status": 301}]}`, 400, "entry 1"},
		{`{"entries": [{"id": "ark:12345/x5n1", "target": "/n1"}, {"id": "ark:67890/n2", "target": "/n2"}]}`, 400, "NAAN"},
		{`{"entries": [{"id": "ark:12345/x5n1", "target": "/n1"}`, 400, "line"},
	} {
		if got := s2.Call("POST", "/import", "editor", c.table); got.Status != c.status || !strings.Contains(got.Body, c.reason) {
			t.Errorf("import %s: %d %s", c.table, got.Status, got.Body)
		}
		s2.ExpectUnbound("ark:12345/x5n1")
	}
}
