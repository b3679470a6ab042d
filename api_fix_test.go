package ark

import (
	"net/http"
	"testing"
)

// TestAPIIfNoneMatchETag: If-None-Match with an entity tag (not "*")
// on a PUT must be evaluated (RFC 9110 13.1.2): when the current ETag
// matches, 412. It is ignored, so the conditional PUT becomes unconditional.
func TestAPIIfNoneMatchETag(t *testing.T) {
	s := startAPISite(t, "")
	if got := s.call("PUT", "/id/ark:12345/x5inm", "editor", `{"target": "https://repo.example.org/1"}`); got.status != http.StatusCreated {
		t.Fatalf("create: %d %s", got.status, got.body)
	}
	got := s.call("PUT", "/id/ark:12345/x5inm", "editor", `{"target": "https://repo.example.org/2"}`, "If-None-Match", `"1"`)
	if got.status != http.StatusPreconditionFailed {
		t.Errorf("If-None-Match: \"1\" on version 1: %d %s, want 412", got.status, got.body)
	}
	// A list in If-Match is valid HTTP; it is refused as malformed (400).
	got = s.call("PUT", "/id/ark:12345/x5inm", "editor", `{"target": "https://repo.example.org/3"}`, "If-Match", `"7", "8"`)
	if got.status != http.StatusPreconditionFailed {
		t.Errorf("If-Match: \"7\", \"8\" with neither current: %d %s, want 412", got.status, got.body)
	}
	// A weak tag never matches If-Match (strong comparison).
	got = s.call("PUT", "/id/ark:12345/x5inm", "editor", `{"target": "https://repo.example.org/4"}`, "If-Match", `W/"1"`)
	if got.status != http.StatusPreconditionFailed {
		t.Errorf("If-Match: W/\"1\" on version 1: %d %s, want 412", got.status, got.body)
	}
	// If-None-Match compares weakly, and looks through the whole list.
	got = s.call("PUT", "/id/ark:12345/x5inm", "editor", `{"target": "https://repo.example.org/5"}`, "If-None-Match", `"9", W/"1"`)
	if got.status != http.StatusPreconditionFailed {
		t.Errorf("If-None-Match: \"9\", W/\"1\" on version 1: %d %s, want 412", got.status, got.body)
	}
	if r := s.lookup("ark:12345/x5inm"); r.Binding.Version != 1 || r.Binding.Target != "https://repo.example.org/1" {
		t.Fatalf("changed by refused conditional PUTs: %+v", r.Binding)
	}
	// A list that holds the current ETag matches; one that does not, for
	// If-None-Match, lets the change through.
	got = s.call("PUT", "/id/ark:12345/x5inm", "editor", `{"target": "https://repo.example.org/6"}`, "If-Match", `"7", "1"`)
	if got.status != http.StatusOK || got.header.Get("ETag") != `"2"` {
		t.Errorf("If-Match: \"7\", \"1\" on version 1: %d %s", got.status, got.body)
	}
	got = s.call("PUT", "/id/ark:12345/x5inm", "editor", `{"target": "https://repo.example.org/7"}`, "If-None-Match", `"1", "3"`)
	if got.status != http.StatusOK || got.header.Get("ETag") != `"3"` {
		t.Errorf("If-None-Match: \"1\", \"3\" on version 2: %d %s", got.status, got.body)
	}
	got = s.call("PUT", "/id/ark:12345/x5inm", "editor", `{"target": "https://repo.example.org/8"}`, "If-Match", `3`)
	if got.status != http.StatusBadRequest {
		t.Errorf("If-Match: 3 (no quotes): %d %s, want 400", got.status, got.body)
	}
	// If-None-Match with a tag on an identifier not bound creates it.
	got = s.call("PUT", "/id/ark:12345/x5inm2", "editor", `{"target": "https://repo.example.org/9"}`, "If-None-Match", `"1"`)
	if got.status != http.StatusCreated {
		t.Errorf("If-None-Match: \"1\" on an unbound id: %d %s", got.status, got.body)
	}
	// Withdrawal takes the same preconditions.
	got = s.call("POST", "/withdraw/ark:12345/x5inm", "editor", `{"reason": "gone"}`, "If-None-Match", `"3"`)
	if got.status != http.StatusPreconditionFailed {
		t.Errorf("withdraw under If-None-Match: \"3\" on version 3: %d %s, want 412", got.status, got.body)
	}
	got = s.call("POST", "/withdraw/ark:12345/x5inm", "editor", `{"reason": "gone"}`, "If-Match", `"2", "3"`)
	if got.status != http.StatusOK {
		t.Errorf("withdraw under If-Match: \"2\", \"3\" on version 3: %d %s", got.status, got.body)
	}
}

