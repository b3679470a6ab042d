package api

import (
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// TestAPIPatchKeepsWhatItIsNotTold checks PATCH id/<id>, a JSON merge
// patch: the fields it leaves out keep their value, null removes a meta
// key or sets a field back to its default. Main answered 405.
func TestAPIPatchKeepsWhatItIsNotTold(t *testing.T) {
	s := caddytest.StartAPISite(t, "minter ark:12345/x5 .sd")
	const id = "ark:12345/x5p1"
	if got := s.Call("PUT", "/id/"+id, "editor", `{"target": "https://repo.example.org/p1", "status": 303, "meta": {"who": "Example Museum", "what": "A vase"}}`); got.Status != http.StatusCreated {
		t.Fatalf("PUT: %d %s", got.Status, got.Body)
	}

	got := s.Call("PATCH", "/id/ark:/12345/x5-p1", "editor", `{"target": "https://repo.example.org/p1-v2"}`, "Content-Type", "application/merge-patch+json")
	b := got.Binding(t)
	if got.Status != http.StatusOK || got.Header.Get("ETag") != `"2"` || b.Target != "https://repo.example.org/p1-v2" || b.Status != 303 || !b.Passthrough ||
		!maps.Equal(b.Meta, map[string]string{"who": "Example Museum", "what": "A vase"}) {
		t.Fatalf("PATCH target: %d %s", got.Status, got.Body)
	}
	if got := s.Get("/" + id); got.Status != 303 || got.Location != "https://repo.example.org/p1-v2" {
		t.Errorf("resolving after PATCH: %d %q", got.Status, got.Location)
	}
	if got := s.Get("/" + id + "?info"); !strings.Contains(got.Body, "Example Museum") {
		t.Errorf("?info after PATCH lost the metadata: %s", got.Body)
	}

	// null removes a meta key, and sets status back to its default.
	got = s.Call("PATCH", "/id/"+id, "editor", `{"meta": {"what": null, "when": "1890"}, "status": null, "passthrough": false}`)
	b = got.Binding(t)
	if got.Status != http.StatusOK || b.Status != 302 || b.Passthrough || b.Target != "https://repo.example.org/p1-v2" ||
		!maps.Equal(b.Meta, map[string]string{"who": "Example Museum", "when": "1890"}) {
		t.Errorf("PATCH meta and status: %d %s", got.Status, got.Body)
	}
	got = s.Call("PATCH", "/id/"+id, "editor", `{"meta": null}`)
	if b := got.Binding(t); got.Status != http.StatusOK || b.Meta != nil || b.Version != 4 {
		t.Errorf("PATCH meta null: %d %s", got.Status, got.Body)
	}

	// The preconditions of PUT.
	if got := s.Call("PATCH", "/id/"+id, "editor", `{"target": "/stale"}`, "If-Match", `"3"`); got.Status != http.StatusPreconditionFailed {
		t.Errorf("PATCH with a stale If-Match: %d %s", got.Status, got.Body)
	}
	if got := s.Call("PATCH", "/id/"+id, "editor", `{"target": "/stale"}`, "If-None-Match", "*"); got.Status != http.StatusPreconditionFailed {
		t.Errorf("PATCH If-None-Match: * of a bound id: %d %s", got.Status, got.Body)
	}
	if got := s.Call("PATCH", "/id/"+id, "editor", `{"meta": {"who": "Museum"}}`, "If-Match", `"4"`); got.Status != http.StatusOK {
		t.Errorf("PATCH with the current If-Match: %d %s", got.Status, got.Body)
	}
	if r := s.Lookup(id); r.Binding.Target != "https://repo.example.org/p1-v2" || r.Binding.Version != 5 || r.History[len(r.History)-1].By != "editor" {
		t.Errorf("after the refused preconditions: %+v", r.Binding)
	}

	// An identifier without a binding is patched from nothing: PUT's defaults.
	got = s.Call("PATCH", "/id/ark:12345/x5p2", "x5", `{"target": "/objects/p2", "meta": {"who": "A"}}`, "If-None-Match", "*")
	if b := got.Binding(t); got.Status != http.StatusCreated || b.Status != 200 || !b.Passthrough || b.Meta["who"] != "A" {
		t.Errorf("PATCH creating: %d %s", got.Status, got.Body)
	}
	if got := s.Call("PATCH", "/id/ark:12345/x5p3", "editor", `{"meta": {"who": "A"}}`); got.Status != http.StatusBadRequest {
		t.Errorf("PATCH creating without a target: %d %s", got.Status, got.Body)
	}
	s.ExpectUnbound("ark:12345/x5p3")

	// A minted name, not bound yet, is bound by PATCH with PUT's defaults.
	ids := caddytest.Minted(t, s.Call("POST", "/mint/ark:12345/x5", "editor", ""))
	got = s.Call("PATCH", "/id/"+ids[0], "editor", `{"target": "https://repo.example.org/m"}`)
	if b := got.Binding(t); got.Status != http.StatusOK || b.Status != 302 || !b.Passthrough || b.Version != 2 {
		t.Errorf("PATCH of a minted name: %d %s", got.Status, got.Body)
	}

	// PUT stays a full replace.
	got = s.Call("PUT", "/id/"+id, "editor", `{"target": "https://repo.example.org/p1-v3"}`)
	if b := got.Binding(t); got.Status != http.StatusOK || b.Meta != nil || b.Status != 302 || !b.Passthrough {
		t.Errorf("PUT after PATCH: %d %s", got.Status, got.Body)
	}
}

// TestAPIPatchRefusals checks that PATCH refuses what PUT refuses, and
// bodies that are not a merge patch of a binding. Main answered 405 to
// each.
func TestAPIPatchRefusals(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	const id = "ark:12345/x5r1"
	if got := s.Call("PUT", "/id/"+id, "editor", `{"target": "https://repo.example.org/r1", "meta": {"who": "A"}}`); got.Status != http.StatusCreated {
		t.Fatalf("PUT: %d %s", got.Status, got.Body)
	}
	if got := s.Call("PUT", "/id/ark:12345/x5gone", "editor", `{"target": "/gone"}`); got.Status != http.StatusCreated {
		t.Fatalf("PUT: %d %s", got.Status, got.Body)
	}
	if got := s.Call("POST", "/withdraw/ark:12345/x5gone", "editor", `{"reason": "Duplicate"}`); got.Status != http.StatusOK {
		t.Fatalf("withdraw: %d %s", got.Status, got.Body)
	}
	for _, c := range []struct {
		id, key, body string
		header        []string
		status        int
		reason        string
	}{
		{id, "", `{"target": "/x"}`, nil, 401, ""},
		{id, "reader", `{"target": "/x"}`, nil, 403, "may not write"},
		{"ark:12345/x7r", "x5", `{"target": "/x"}`, nil, 403, "may not write"},
		{"ark:12345/t1", "editor", `{"target": "/x"}`, nil, 409, "assigned by"},
		{"ark:12345/x5gone", "editor", `{"target": "/x"}`, nil, 409, "withdrawn"},
		{"ark:12345/x5gone", "editor", `{"meta": {"who": "B"}}`, nil, 409, "withdrawn"},
		{id, "editor", `{"status": 410}`, nil, 400, "withdraw"},
		{id, "editor", `{"status": 301}`, nil, 400, "permanent"},
		{id, "editor", `{"target": null}`, nil, 400, ""},
		{id, "editor", `{"id": "ark:12345/x5other"}`, nil, 400, "unknown field"},
		{id, "editor", `{"meta": {"who": 7}}`, nil, 400, "the value must be a string"},
		{id, "editor", `{"meta": {"who": "B", "who": "C"}}`, nil, 400, "appears twice"},
		{id, "editor", `{"target": "/a", "target": "/b"}`, nil, 400, "appears twice"},
		{id, "editor", `[{"op": "replace", "path": "/target", "value": "/x"}]`, nil, 400, "not a JSON object"},
		{id, "editor", `null`, nil, 400, "not a JSON object"},
		{id, "editor", `{"target": "/x"} {}`, nil, 400, "more follows"},
		{id, "editor", `{"target": "/x"}`, []string{"Content-Type", "application/json-patch+json"}, 415, "application/merge-patch+json"},
		{id, "editor", `{"target": "/x"}`, []string{"If-Match", "3"}, 400, "If-Match"},
	} {
		got := s.Call("PATCH", "/id/"+c.id, c.key, c.body, c.header...)
		if got.Status != c.status || !strings.Contains(got.Body, c.reason) {
			t.Errorf("PATCH %s %s: %d %s, want %d %q", c.id, c.body, got.Status, got.Body, c.status, c.reason)
		}
		if got.Status == http.StatusUnsupportedMediaType && got.Header.Get("Accept-Patch") != "application/merge-patch+json" {
			t.Errorf("415 without Accept-Patch: %v", got.Header)
		}
	}
	if r := s.Lookup(id); r.Binding.Version != 1 || r.Binding.Target != "https://repo.example.org/r1" || r.Binding.Meta["who"] != "A" {
		t.Errorf("changed by a refused PATCH: %+v", r.Binding)
	}
	s.ExpectUnbound("ark:12345/x7r")
}
