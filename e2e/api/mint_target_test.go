package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// TestAPIMintTargetPlaceholders checks that a mint-and-bind's target takes
// the placeholders of the new name's parts that templates take, and
// refuses, before minting, one it cannot expand. Main expanded only {id}:
// it stored {name} as it was, and Location carried it.
func TestAPIMintTargetPlaceholders(t *testing.T) {
	s := caddytest.StartAPISite(t, "minter ark:12345/x8 .sdd")
	got := s.Call("POST", "/mint/ark:12345/x8", "editor", `{"target": "https://repo.example.org/{naan}/{shoulder}/{blade}?name={name}&id={id}"}`)
	if ids := caddytest.Minted(t, got); got.Status != http.StatusCreated || len(ids) != 1 || ids[0] != "ark:12345/x800" {
		t.Fatalf("mint: %d %s", got.Status, got.Body)
	}
	if got := s.Get("/ark:12345/x800"); got.Status != 302 || got.Location != "https://repo.example.org/12345/x8/00?name=x800&id=ark:12345/x800" {
		t.Errorf("resolving: %d %q", got.Status, got.Location)
	}
	// As a template writes them, and with braces escaped as in a template.
	got = s.Call("POST", "/mint/ark:12345/x8", "editor", `{"target": "/objects/{http.ark.name}/\\{id\\}"}`)
	if ids := caddytest.Minted(t, got); got.Status != http.StatusCreated || len(ids) != 1 {
		t.Fatalf("mint: %d %s", got.Status, got.Body)
	}
	if r := s.Lookup("ark:12345/x801"); r == nil || r.Binding.Target != "/objects/x801/{id}" {
		t.Errorf("template spelling: %+v", r)
	}

	for _, c := range []struct{ target, reason string }{
		{"https://repo.example.org/{nmae}", "unknown placeholder {nmae}"},
		{"https://repo.example.org/{http.ark.nmae}", "unknown placeholder {http.ark.nmae}"},
		{"https://repo.example.org/{http.request.host}", "unknown placeholder {http.request.host}"},
		{"https://repo.example.org/{}", "unknown placeholder {}"},
		{"https://repo.example.org/{name}{suffix}", "placeholder {suffix} has a value only when a request resolves"},
		{"https://repo.example.org/{http.ark.via}", "placeholder {http.ark.via} has a value only when a request resolves"},
		{"https://repo.example.org/{http.ark.target}", "only when a request resolves"},
		{"https://repo.example.org/{outcome}", "only when a request resolves"},
	} {
		got := s.Call("POST", "/mint/ark:12345/x8", "editor", `{"target": "`+c.target+`"}`)
		if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, c.reason) {
			t.Errorf("mint to %s: %d %s, want 400 %q", c.target, got.Status, got.Body, c.reason)
		}
	}
	// Nothing was minted by the refusals.
	got = s.Call("POST", "/mint/ark:12345/x8", "editor", "")
	if ids := caddytest.Minted(t, got); got.Status != http.StatusCreated || len(ids) != 1 || ids[0] != "ark:12345/x802" {
		t.Errorf("after the refusals: %d %s", got.Status, got.Body)
	}
}
