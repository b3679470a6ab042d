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

// TestAPIMintBareNAAN: a minter on a bare NAAN (which the
// configuration accepts) cannot be used by a key scoped to that NAAN:
// covers() parses "ark:12345/", which is not an ARK, so the scope check
// fails and only a "*" key may mint there.
func TestAPIMintBareNAAN(t *testing.T) {
	s := startAPISite(t, `minter ark:12345 .sddd`)
	got := s.call("POST", "/mint/ark:12345", "editor", "")
	if got.status != http.StatusCreated {
		t.Fatalf("write:ark:12345 minting from the NAAN's minter: %d %s", got.status, got.body)
	}
	if ids := minted(t, got); len(ids) != 1 || ids[0] != "ark:12345/000" {
		t.Errorf("minted %v, want ark:12345/000", ids)
	}
	got = s.call("POST", "/mint/ark:/12345", "editor", `{"target": "https://repo.example.org/{id}"}`)
	if ids := minted(t, got); got.status != http.StatusCreated || len(ids) != 1 || s.lookup(ids[0]).Binding.Target != "https://repo.example.org/"+ids[0] {
		t.Errorf("mint-and-bind from the NAAN's minter: %d %s", got.status, got.body)
	}
	for _, key := range []string{"x5", "reader"} {
		if got := s.call("POST", "/mint/ark:12345", key, ""); got.status != http.StatusForbidden {
			t.Errorf("%s minting from the NAAN's minter: %d %s, want 403", key, got.status, got.body)
		}
	}
}
