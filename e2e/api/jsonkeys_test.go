package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// Every JSON body the API reads refuses a key repeated in an object, as
// table files and import do, with the same reason: the body means what its
// reader sees, not what the last of two keys says. Keys spelled in another
// case count as repeats, since the fields of a body match them (issue 20,
// item 9).
func TestAPIRefusesRepeatedJSONKeys(t *testing.T) {
	s := caddytest.StartAPISite(t, "minter ark:12345/x5 .reeddeedk")
	const reason = "a repeated key is refused"
	for _, c := range []struct{ method, path, body, want string }{
		{"PUT", "/id/ark:12345/x5d1", `{"target": "https://repo.example.org/shown", "target": "https://evil.example/hidden"}`, `\"target\" appears twice in the entry`},
		{"PUT", "/id/ark:12345/x5d2", `{"target": "https://repo.example.org/shown", "Target": "https://evil.example/hidden"}`, `\"Target\" appears twice in the entry`},
		{"PUT", "/id/ark:12345/x5d3", `{"target": "https://repo.example.org/d3", "meta": {"who": "Shown", "who": "Hidden"}}`, `meta \"who\" appears twice`},
		{"PUT", "/id/ark:12345/x5d4", `{"target": "https://repo.example.org/d4", "meta": {"who": "Shown"}, "meta": {"who": "Hidden"}}`, `\"meta\" appears twice in the entry`},
		{"POST", "/withdraw/ark:12345/x5d5", `{"reason": "shown", "reason": "hidden"}`, `\"reason\" appears twice in the entry`},
		{"POST", "/mint/ark:12345/x5", `{"target": "https://repo.example.org/{id}", "status": 303, "status": 307}`, `\"status\" appears twice in the entry`},
		{"POST", "/import", `{"entries": [{"id": "ark:12345/x5d6", "target": "https://repo.example.org/d6", "meta": {"who": "Shown", "who": "Hidden"}}]}`, `meta \"who\" appears twice`},
	} {
		got := s.Call(c.method, c.path, "editor", c.body)
		if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, c.want) || !strings.Contains(got.Body, reason) {
			t.Errorf("%s %s %s: %d %s", c.method, c.path, c.body, got.Status, got.Body)
		}
	}
	got := s.Call("POST", "/bulk", "editor", `{"op": "bind", "id": "ark:12345/x5b1", "target": "https://repo.example.org/b1", "meta": {"what": "a", "what": "b"}}`+"\n"+
		`{"op": "bind", "id": "ark:12345/x5b2", "id": "ark:12345/x5b3", "target": "https://repo.example.org/b2"}`+"\n"+
		`{"op": "bind", "id": "ark:12345/x5b4", "target": "https://repo.example.org/b4", "meta": {"what": "a", "who": "b"}}`+"\n")
	lines := strings.Split(strings.TrimSpace(got.Body), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"status":400`) || !strings.Contains(lines[0], `meta \"what\" appears twice`) ||
		!strings.Contains(lines[1], `"status":400`) || !strings.Contains(lines[1], `\"id\" appears twice in the entry`) || !strings.Contains(lines[2], `"status":201`) {
		t.Errorf("bulk: %s", got.Body)
	}
	for _, id := range []string{"ark:12345/x5d1", "ark:12345/x5d2", "ark:12345/x5d3", "ark:12345/x5d4", "ark:12345/x5d6", "ark:12345/x5b1", "ark:12345/x5b2", "ark:12345/x5b3"} {
		s.ExpectUnbound(id)
	}
	if got := s.Get("/ark:12345/x5d5"); got.Status != http.StatusNotFound {
		t.Errorf("withdrawn after a refusal: %d", got.Status)
	}
}
