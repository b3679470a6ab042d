package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

func TestAPIBindUpdateResolve(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	if got := s.Get("/ark:12345/x5abc"); got.Status != http.StatusNotFound {
		t.Fatalf("before binding: %d", got.Status)
	}
	got := s.Call("PUT", "/id/ark:/12345/x5-abc", "editor", `{"target": "https://repo.example.org/abc"}`)
	b := got.Binding(t)
	if got.Status != http.StatusCreated || got.Header.Get("ETag") != `"1"` || b.Key != "ark:12345/x5abc" || b.Status != 302 || b.By != "editor" {
		t.Fatalf("create: %d ETag %s %s", got.Status, got.Header.Get("ETag"), got.Body)
	}
	s.ExpectRedirects(map[string]string{"/ark:12345/x5abc": "https://repo.example.org/abc",
		"/ark:/12345/x5-abc/c1.pdf": "https://repo.example.org/abc/c1.pdf"})

	got = s.Call("PUT", "/id/ark:12345/x5abc", "x5", `{"target": "https://repo.example.org/v2", "status": 303}`, "If-Match", `"1"`)
	if got.Status != http.StatusOK || got.Header.Get("ETag") != `"2"` {
		t.Fatalf("update under If-Match: %d %s", got.Status, got.Body)
	}
	if got := s.Get("/ark:12345/x5abc"); got.Status != 303 || got.Location != "https://repo.example.org/v2" {
		t.Errorf("the next request after the update: %d %q", got.Status, got.Location)
	}

	// A second editor still holding version 1 is refused, and changes nothing.
	got = s.Call("PUT", "/id/ark:12345/x5abc", "editor", `{"target": "https://repo.example.org/stale"}`, "If-Match", `"1"`)
	if got.Status != http.StatusPreconditionFailed {
		t.Errorf("stale If-Match: %d %s", got.Status, got.Body)
	}
	got = s.Call("PUT", "/id/ark:12345/x5abc", "editor", `{"target": "https://repo.example.org/again"}`, "If-None-Match", "*")
	if got.Status != http.StatusPreconditionFailed {
		t.Errorf("If-None-Match: * on a bound id: %d %s", got.Status, got.Body)
	}
	r := s.Lookup("ark:12345/x5abc")
	if r.Binding.Target != "https://repo.example.org/v2" || r.Binding.Version != 2 || len(r.History) != 2 {
		t.Fatalf("after the refusals: %+v, %d changes", r.Binding, len(r.History))
	}
	if h := r.History; h[0].By != "editor" || h[0].Old != nil || h[1].By != "x5" || h[1].Old.Target != "https://repo.example.org/abc" || h[1].New.Target != "https://repo.example.org/v2" {
		t.Errorf("history: %+v", h)
	}
	if got := s.Call("GET", "/id/ark:12345/x5abc", "reader", ""); got.Status != http.StatusOK || got.Header.Get("ETag") != `"2"` {
		t.Errorf("GET by a read key: %d ETag %s", got.Status, got.Header.Get("ETag"))
	}

	got = s.Call("PUT", "/id/urn:isbn:978-3-16-148410-0", "editor", `{"target": "/objects/x5wf6789.html", "passthrough": false, "meta": {"what": "A book"}}`, "If-None-Match", "*")
	if b := got.Binding(t); got.Status != http.StatusCreated || b.Key != "urn:isbn:978-3-16-148410-0" || b.Status != 200 || b.Passthrough || b.Meta["what"] != "A book" {
		t.Errorf("a URN: %d %s", got.Status, got.Body)
	}
}

func TestAPIAuth(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	body := `{"target": "https://repo.example.org/x"}`
	got := s.Call("PUT", "/id/ark:12345/x5a", "", body)
	if got.Status != http.StatusUnauthorized || got.Header.Get("WWW-Authenticate") != `Bearer realm="ark"` {
		t.Errorf("no key: %d %q %s", got.Status, got.Header.Get("WWW-Authenticate"), got.Body)
	}
	got = s.Call("PUT", "/id/ark:12345/x5a", "stranger", body)
	if got.Status != http.StatusUnauthorized || !strings.Contains(got.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Errorf("a wrong key: %d %q", got.Status, got.Header.Get("WWW-Authenticate"))
	}
	for _, c := range []struct{ key, id string }{
		{"reader", "ark:12345/x5a"}, // read only
		{"x5", "ark:12345/y7a"},     // another shoulder
		{"x5", "ark:12345/x"},       // the shoulder's own ancestor
		{"x5", "urn:isbn:123"},
	} {
		if got := s.Call("PUT", "/id/"+c.id, c.key, body); got.Status != http.StatusForbidden {
			t.Errorf("%s writing %s: %d %s", c.key, c.id, got.Status, got.Body)
		}
		if got := s.Call("POST", "/withdraw/"+c.id, c.key, `{"reason": "x"}`); got.Status != http.StatusForbidden {
			t.Errorf("%s withdrawing %s: %d %s", c.key, c.id, got.Status, got.Body)
		}
		s.ExpectUnbound(c.id)
	}
	if got := s.Call("GET", "/id/ark:12345/x5a", "x5", ""); got.Status != http.StatusNotFound {
		t.Errorf("a write key reads its shoulder: %d %s", got.Status, got.Body)
	}
	if got := s.Call("GET", "/id/ark:12345/y", "x5", ""); got.Status != http.StatusForbidden {
		t.Errorf("reading out of scope: %d %s", got.Status, got.Body)
	}
	if got := s.Call("GET", "/export", "", ""); got.Status != http.StatusUnauthorized {
		t.Errorf("export with no key: %d", got.Status)
	}
	if got := s.Get("/api/arkive"); got.Status != 418 {
		t.Errorf("a path that only starts like the prefix: %d", got.Status)
	}
}

func TestAPIRefusesBadInput(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
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
		{"ark:12345/t1", `{"target": "/x"}`, 409, "assigned by " + s.Table},
		{"ark:/12345/t-1", `{"target": "/x"}`, 409, "assigned by " + s.Table},
		{"ark:12345/x5a", `{"target": "/` + strings.Repeat("x", api.MaxBindBody) + `"}`, 413, "larger than"},
	} {
		got := s.Call("PUT", "/id/"+c.id, "editor", c.body)
		var refusal struct {
			Status int
			Error  string
		}
		if err := json.Unmarshal([]byte(got.Body), &refusal); err != nil || got.Status != c.status || refusal.Status != c.status || !strings.Contains(refusal.Error, c.reason) {
			t.Errorf("PUT %s %.60s: %d %.300s, want %d with %q", c.id, c.body, got.Status, got.Body, c.status, c.reason)
		}
	}
	s.ExpectUnbound("ark:12345/x5a")
	if got := s.Get("/ark:12345/t1"); got.Location != "https://table.example.org/t1" {
		t.Errorf("the table's id after a refused rebind: %d %q", got.Status, got.Location)
	}
}

func TestAPIWithdraw(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	s.Call("PUT", "/id/ark:12345/x5w", "editor", `{"target": "https://repo.example.org/w", "meta": {"who": "A. Author"}}`)
	if got := s.Call("POST", "/withdraw/ark:12345/x5w", "editor", `{}`); got.Status != http.StatusBadRequest {
		t.Errorf("no reason: %d %s", got.Status, got.Body)
	}
	got := s.Call("POST", "/withdraw/ark:12345/x5w", "x5", `{"reason": "Duplicate of ark:12345/x5v"}`)
	if b := got.Binding(t); got.Status != http.StatusOK || b.Status != 410 || b.Reason != "Duplicate of ark:12345/x5v" || b.Version != 2 || b.Meta["who"] != "A. Author" {
		t.Fatalf("withdraw: %d %s", got.Status, got.Body)
	}
	if got := s.Get("/ark:12345/x5w"); got.Status != http.StatusGone {
		t.Errorf("resolving the withdrawn id: %d %s", got.Status, got.Body)
	}
	if got := s.Get("/ark:12345/x5w?info"); got.Status != http.StatusOK || !strings.Contains(got.Body, "A. Author") {
		t.Errorf("?info of the withdrawn id: %d %s", got.Status, got.Body)
	}
	for _, c := range []struct{ method, path, body string }{
		{"PUT", "/id/ark:12345/x5w", `{"target": "https://repo.example.org/back"}`},
		{"POST", "/withdraw/ark:12345/x5w", `{"reason": "again"}`},
	} {
		if got := s.Call(c.method, c.path, "editor", c.body); got.Status != http.StatusConflict {
			t.Errorf("%s %s after withdrawal: %d %s", c.method, c.path, got.Status, got.Body)
		}
	}
	if r := s.Lookup("ark:12345/x5w"); r.Binding.Status != 410 || r.Binding.Version != 2 || len(r.History) != 2 || r.History[1].By != "x5" {
		t.Errorf("after the refusals: %+v %+v", r.Binding, r.History)
	}
	// An identifier never bound can be withdrawn too, so it is never assigned.
	if got := s.Call("POST", "/withdraw/ark:12345/x5never", "editor", `{"reason": "Reserved by mistake"}`); got.Status != http.StatusCreated {
		t.Errorf("withdrawing an unbound id: %d %s", got.Status, got.Body)
	}
	if got := s.Call("PUT", "/id/ark:12345/x5never", "editor", `{"target": "/x"}`); got.Status != http.StatusConflict {
		t.Errorf("binding it after: %d %s", got.Status, got.Body)
	}
}
