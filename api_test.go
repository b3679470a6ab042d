package ark

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/api"
)

func TestAPIBindUpdateResolve(t *testing.T) {
	s := startAPISite(t, "")
	if got := s.get("/ark:12345/x5abc"); got.status != http.StatusNotFound {
		t.Fatalf("before binding: %d", got.status)
	}
	got := s.call("PUT", "/id/ark:/12345/x5-abc", "editor", `{"target": "https://repo.example.org/abc"}`)
	b := got.binding(t)
	if got.status != http.StatusCreated || got.header.Get("ETag") != `"1"` || b.Key != "ark:12345/x5abc" || b.Status != 302 || b.By != "editor" {
		t.Fatalf("create: %d ETag %s %s", got.status, got.header.Get("ETag"), got.body)
	}
	s.expectRedirects(map[string]string{"/ark:12345/x5abc": "https://repo.example.org/abc",
		"/ark:/12345/x5-abc/c1.pdf": "https://repo.example.org/abc/c1.pdf"})

	got = s.call("PUT", "/id/ark:12345/x5abc", "x5", `{"target": "https://repo.example.org/v2", "status": 303}`, "If-Match", `"1"`)
	if got.status != http.StatusOK || got.header.Get("ETag") != `"2"` {
		t.Fatalf("update under If-Match: %d %s", got.status, got.body)
	}
	if got := s.get("/ark:12345/x5abc"); got.status != 303 || got.location != "https://repo.example.org/v2" {
		t.Errorf("the next request after the update: %d %q", got.status, got.location)
	}

	// A second editor still holding version 1 is refused, and changes nothing.
	got = s.call("PUT", "/id/ark:12345/x5abc", "editor", `{"target": "https://repo.example.org/stale"}`, "If-Match", `"1"`)
	if got.status != http.StatusPreconditionFailed {
		t.Errorf("stale If-Match: %d %s", got.status, got.body)
	}
	got = s.call("PUT", "/id/ark:12345/x5abc", "editor", `{"target": "https://repo.example.org/again"}`, "If-None-Match", "*")
	if got.status != http.StatusPreconditionFailed {
		t.Errorf("If-None-Match: * on a bound id: %d %s", got.status, got.body)
	}
	r := s.lookup("ark:12345/x5abc")
	if r.Binding.Target != "https://repo.example.org/v2" || r.Binding.Version != 2 || len(r.History) != 2 {
		t.Fatalf("after the refusals: %+v, %d changes", r.Binding, len(r.History))
	}
	if h := r.History; h[0].By != "editor" || h[0].Old != nil || h[1].By != "x5" || h[1].Old.Target != "https://repo.example.org/abc" || h[1].New.Target != "https://repo.example.org/v2" {
		t.Errorf("history: %+v", h)
	}
	if got := s.call("GET", "/id/ark:12345/x5abc", "reader", ""); got.status != http.StatusOK || got.header.Get("ETag") != `"2"` {
		t.Errorf("GET by a read key: %d ETag %s", got.status, got.header.Get("ETag"))
	}

	got = s.call("PUT", "/id/urn:isbn:978-3-16-148410-0", "editor", `{"target": "/objects/x5wf6789.html", "passthrough": false, "meta": {"what": "A book"}}`, "If-None-Match", "*")
	if b := got.binding(t); got.status != http.StatusCreated || b.Key != "urn:isbn:978-3-16-148410-0" || b.Status != 200 || b.Passthrough || b.Meta["what"] != "A book" {
		t.Errorf("a URN: %d %s", got.status, got.body)
	}
}

func TestAPIAuth(t *testing.T) {
	s := startAPISite(t, "")
	body := `{"target": "https://repo.example.org/x"}`
	got := s.call("PUT", "/id/ark:12345/x5a", "", body)
	if got.status != http.StatusUnauthorized || got.header.Get("WWW-Authenticate") != `Bearer realm="ark"` {
		t.Errorf("no key: %d %q %s", got.status, got.header.Get("WWW-Authenticate"), got.body)
	}
	got = s.call("PUT", "/id/ark:12345/x5a", "stranger", body)
	if got.status != http.StatusUnauthorized || !strings.Contains(got.header.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Errorf("a wrong key: %d %q", got.status, got.header.Get("WWW-Authenticate"))
	}
	for _, c := range []struct{ key, id string }{
		{"reader", "ark:12345/x5a"}, // read only
		{"x5", "ark:12345/y7a"},     // another shoulder
		{"x5", "ark:12345/x"},       // the shoulder's own ancestor
		{"x5", "urn:isbn:123"},
	} {
		if got := s.call("PUT", "/id/"+c.id, c.key, body); got.status != http.StatusForbidden {
			t.Errorf("%s writing %s: %d %s", c.key, c.id, got.status, got.body)
		}
		if got := s.call("POST", "/withdraw/"+c.id, c.key, `{"reason": "x"}`); got.status != http.StatusForbidden {
			t.Errorf("%s withdrawing %s: %d %s", c.key, c.id, got.status, got.body)
		}
		s.expectUnbound(c.id)
	}
	if got := s.call("GET", "/id/ark:12345/x5a", "x5", ""); got.status != http.StatusNotFound {
		t.Errorf("a write key reads its shoulder: %d %s", got.status, got.body)
	}
	if got := s.call("GET", "/id/ark:12345/y", "x5", ""); got.status != http.StatusForbidden {
		t.Errorf("reading out of scope: %d %s", got.status, got.body)
	}
	if got := s.call("GET", "/export", "", ""); got.status != http.StatusUnauthorized {
		t.Errorf("export with no key: %d", got.status)
	}
	if got := s.get("/api/arkive"); got.status != 418 {
		t.Errorf("a path that only starts like the prefix: %d", got.status)
	}
}

func TestAPIRefusesBadInput(t *testing.T) {
	s := startAPISite(t, "")
	for _, c := range []struct {
		id, body string
		status   int
		reason   string
	}{
		{"ark:12,345/x5a", `{"target": "/x"}`, 400, "id"},
		{"ark:12345/x5a", `{"target": "https://repo.example.org/x", "status": 301}`, 400, "permanent redirects"},
		{"ark:12345/x5a", `{"target": "https://repo.example.org/x", "status": 308}`, 400, "permanent redirects"},
		{"ark:12345/x5a", `{"target": "ftp://repo.example.org/x"}`, 400, "target"},
		{"ark:12345/x5a", `{"target": "/x", "color": "red"}`, 400, "color"},
		{"ark:12345/x5a", `{"target": "/x", "status": 410}`, 400, "withdraw"},
		{"ark:67890/x5a", `{"target": "/x"}`, 400, "NAAN 67890 is not this site's"},
		{"ark:12345/t1", `{"target": "/x"}`, 409, "assigned by " + s.table},
		{"ark:/12345/t-1", `{"target": "/x"}`, 409, "assigned by " + s.table},
		{"ark:12345/x5a", `{"target": "/` + strings.Repeat("x", api.MaxBindBody) + `"}`, 413, "larger than"},
	} {
		got := s.call("PUT", "/id/"+c.id, "editor", c.body)
		var refusal struct {
			Status int
			Error  string
		}
		if err := json.Unmarshal([]byte(got.body), &refusal); err != nil || got.status != c.status || refusal.Status != c.status || !strings.Contains(refusal.Error, c.reason) {
			t.Errorf("PUT %s %.60s: %d %.300s, want %d with %q", c.id, c.body, got.status, got.body, c.status, c.reason)
		}
	}
	s.expectUnbound("ark:12345/x5a")
	if got := s.get("/ark:12345/t1"); got.location != "https://table.example.org/t1" {
		t.Errorf("the table's id after a refused rebind: %d %q", got.status, got.location)
	}
}

func TestAPIWithdraw(t *testing.T) {
	s := startAPISite(t, "")
	s.call("PUT", "/id/ark:12345/x5w", "editor", `{"target": "https://repo.example.org/w", "meta": {"who": "A. Author"}}`)
	if got := s.call("POST", "/withdraw/ark:12345/x5w", "editor", `{}`); got.status != http.StatusBadRequest {
		t.Errorf("no reason: %d %s", got.status, got.body)
	}
	got := s.call("POST", "/withdraw/ark:12345/x5w", "x5", `{"reason": "Duplicate of ark:12345/x5v"}`)
	if b := got.binding(t); got.status != http.StatusOK || b.Status != 410 || b.Reason != "Duplicate of ark:12345/x5v" || b.Version != 2 || b.Meta["who"] != "A. Author" {
		t.Fatalf("withdraw: %d %s", got.status, got.body)
	}
	if got := s.get("/ark:12345/x5w"); got.status != http.StatusGone {
		t.Errorf("resolving the withdrawn id: %d %s", got.status, got.body)
	}
	if got := s.get("/ark:12345/x5w?info"); got.status != http.StatusOK || !strings.Contains(got.body, "A. Author") {
		t.Errorf("?info of the withdrawn id: %d %s", got.status, got.body)
	}
	for _, c := range []struct{ method, path, body string }{
		{"PUT", "/id/ark:12345/x5w", `{"target": "https://repo.example.org/back"}`},
		{"POST", "/withdraw/ark:12345/x5w", `{"reason": "again"}`},
	} {
		if got := s.call(c.method, c.path, "editor", c.body); got.status != http.StatusConflict {
			t.Errorf("%s %s after withdrawal: %d %s", c.method, c.path, got.status, got.body)
		}
	}
	if r := s.lookup("ark:12345/x5w"); r.Binding.Status != 410 || r.Binding.Version != 2 || len(r.History) != 2 || r.History[1].By != "x5" {
		t.Errorf("after the refusals: %+v %+v", r.Binding, r.History)
	}
	// An identifier never bound can be withdrawn too, so it is never assigned.
	if got := s.call("POST", "/withdraw/ark:12345/x5never", "editor", `{"reason": "Reserved by mistake"}`); got.status != http.StatusCreated {
		t.Errorf("withdrawing an unbound id: %d %s", got.status, got.body)
	}
	if got := s.call("PUT", "/id/ark:12345/x5never", "editor", `{"target": "/x"}`); got.status != http.StatusConflict {
		t.Errorf("binding it after: %d %s", got.status, got.body)
	}
}
