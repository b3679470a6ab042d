package serve

import (
	"path/filepath"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

func TestLogsTableLoadsResolutionsAndAccessLogFields(t *testing.T) {
	path := testkit.WriteTable(t, []table.Entry{
		{ID: "ark:12345/x5wf6789", Target: "https://repo.example.org/x"},
		{ID: "ark:12345/b2c4d6", Target: "/objects/x5wf6789.html"},
	})
	access := filepath.Join(t.TempDir(), "access.log")
	s := caddytest.StartOpsSite(t, `
	root * `+caddytest.SiteRoot(t)+`
	log {
		output file `+access+`
		format json
	}
	ark {
		table `+path+`
		map urn:nbn:de:101-2024 /objects/thesis.html
		foreign 404
	}
	file_server`)

	loads := caddytest.LogEntries(t, s.Log, "table loaded")
	if len(loads) != 1 {
		t.Fatalf("%d table loads logged, want 1", len(loads))
	}
	l := loads[0]
	if l["level"] != "info" || l["logger"] != "http.handlers.ark" || l["trigger"] != "config" || l["entries"] != 3.0 || l["duration"] == nil {
		t.Errorf("table load logged as %v", l)
	}
	if files, _ := l["files"].([]any); len(files) != 1 || files[0] != path {
		t.Errorf("table load logged files %v", l["files"])
	}

	requests := []struct {
		path, id, outcome, target string
		status                    int
	}{
		{"/ark:/12345/x5-wf-6789?x=1", "ark:12345/x5wf6789", "redirect", "https://repo.example.org/x?x=1", 302},
		{"/ARK:12345/b2c4d6", "ark:12345/b2c4d6", "in_place", "/objects/x5wf6789.html", 200},
		{"/ark:12345/nope", "ark:12345/nope", "not_found", "", 404},
		{"/ark:99999/x", "", "invalid", "", 400},
		// Resolved in place, then refused for its query.
		{"/urn:nbn:de:101-2024?x", "urn:nbn:de:101-2024", "invalid", "", 400},
	}
	for _, r := range requests {
		if got := s.Get(r.path); got.Status != r.status {
			t.Fatalf("%s: %d, want %d", r.path, got.Status, r.status)
		}
	}
	testkit.WaitFor(t, "the access log", func() bool { return len(caddytest.LogEntries(t, access, "handled request")) == len(requests) })
	resolved := caddytest.LogEntries(t, s.Log, "resolved")
	if len(resolved) != len(requests) {
		t.Fatalf("%d resolutions logged, want %d", len(resolved), len(requests))
	}
	for i, r := range requests {
		d := resolved[i]
		if d["level"] != "debug" || d["raw"] != r.path[1:len(r.path)-len(queryOf(r.path))] || d["id"] != r.id || d["outcome"] != r.outcome || d["target"] != r.target {
			t.Errorf("%s: logged %v", r.path, d)
		}
		a := caddytest.LogEntries(t, access, "handled request")[i]
		if a["ark_outcome"] != r.outcome || (r.id != "" && a["ark_id"] != r.id) || (r.id == "" && a["ark_id"] != nil) {
			t.Errorf("%s: access log has ark_id %v, ark_outcome %v", r.path, a["ark_id"], a["ark_outcome"])
		}
	}
}

// queryOf returns the "?..." part of a request path, or "".
func queryOf(path string) string {
	for i := range path {
		if path[i] == '?' {
			return path[i:]
		}
	}
	return ""
}
