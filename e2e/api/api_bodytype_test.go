package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// TestAPIBodyTypes sends the API's JSON bodies with each Content-Type:
// none, application/json and curl's default for -d,
// application/x-www-form-urlencoded, are read as JSON by PUT, PATCH and
// POST alike (PATCH also takes application/merge-patch+json); another
// type is 415 naming those that are taken, and PATCH's says Accept-Patch.
func TestAPIBodyTypes(t *testing.T) {
	s := caddytest.StartAPISite(t, "minter ark:12345/m1 .sdd")
	taken := []string{"", "application/json", "application/json; charset=utf-8", "application/x-www-form-urlencoded"}
	for i, ct := range taken {
		var header []string
		if ct != "" {
			header = []string{"Content-Type", ct}
		}
		id := "/id/ark:12345/ct" + string(rune('a'+i))
		for _, c := range []struct {
			method, path, body string
			want               int
		}{
			{"PUT", id, `{"target": "https://repo.example.org/put"}`, http.StatusCreated},
			{"PATCH", id, `{"meta": {"who": "me"}}`, http.StatusOK},
			{"POST", "/mint/ark:12345/m1", `{"target": "https://repo.example.org/{id}"}`, http.StatusCreated},
			{"POST", "/retarget", `{"from": "https://repo.example.org/put", "to": "https://repo.example.org/moved", "dry_run": true}`, http.StatusOK},
			{"POST", "/withdraw" + strings.TrimPrefix(id, "/id"), `{"reason": "gone"}`, http.StatusOK},
		} {
			if got := s.Call(c.method, c.path, "editor", c.body, header...); got.Status != c.want {
				t.Errorf("%s %s with Content-Type %q: %d %s; want %d", c.method, c.path, ct, got.Status, got.Body, c.want)
			}
		}
	}
	if got := s.Call("PATCH", "/id/ark:12345/ctm", "editor", `{"target": "https://repo.example.org/m"}`, "Content-Type", "application/merge-patch+json"); got.Status != http.StatusCreated {
		t.Errorf("PATCH with a merge patch's type: %d %s", got.Status, got.Body)
	}
	for _, ct := range []string{"text/csv", "multipart/form-data; boundary=x", "application/merge-patch+json", "not a type"} {
		for _, c := range []struct{ method, path, body string }{
			{"PUT", "/id/ark:12345/ctz", `{"target": "https://repo.example.org/z"}`},
			{"PATCH", "/id/ark:12345/ctz", `{"target": "https://repo.example.org/z"}`},
			{"POST", "/mint/ark:12345/m1", `{"target": "https://repo.example.org/{id}"}`},
			{"POST", "/retarget", `{"from": "https://repo.example.org/", "to": "https://x.example.org/", "dry_run": true}`},
			{"POST", "/withdraw/ark:12345/ctm", `{"reason": "gone"}`},
		} {
			if c.method == "PATCH" && ct == "application/merge-patch+json" {
				continue
			}
			got := s.Call(c.method, c.path, "editor", c.body, "Content-Type", ct)
			if got.Status != http.StatusUnsupportedMediaType || !strings.Contains(got.Body, "application/json, application/x-www-form-urlencoded, or none") {
				t.Errorf("%s %s with Content-Type %q: %d %s; want 415 naming the types taken", c.method, c.path, ct, got.Status, got.Body)
			}
			if c.method == "PATCH" && got.Header.Get("Accept-Patch") != "application/merge-patch+json" {
				t.Errorf("PATCH with Content-Type %q: Accept-Patch %q", ct, got.Header.Get("Accept-Patch"))
			}
		}
	}
	s.ExpectUnbound("ark:12345/ctz")
}
