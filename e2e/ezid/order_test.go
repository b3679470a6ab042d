package ezid

import (
	"net/http"
	"testing"
)

// TestEZIDRefusalOrder: a request with several faults is refused for the
// one EZID's server checks first (impl/api.py): credentials, then the
// body, then the URL's query, then the identifier. A client that sends
// credentials only when challenged (as the API document says many do)
// gets the challenge first, whatever else is wrong. Nothing changes.
func TestEZIDRefusalOrder(t *testing.T) {
	s := startEZIDSite(t, boltStore(t), "", "")
	for _, c := range []struct{ method, path string }{
		{"PUT", "/id/ark:/12345/x5o?bogus=1"},
		{"POST", "/id/ark:/12345/x5o?bogus=1"},
		{"DELETE", "/id/ark:/12345/x5o?bogus=1"},
		{"POST", "/shoulder/ark:/12345/x5?bogus=1"},
		{"PUT", "/id/bogus?update_if_exists=maybe"},
	} {
		a := s.call(c.method, c.path, "no colon\n")
		s.expect(a, http.StatusUnauthorized, "error: unauthorized")
		if got := a.Header.Get("WWW-Authenticate"); got != `Basic realm="EZID"` {
			t.Errorf("%s %s: WWW-Authenticate %q", c.method, c.path, got)
		}
	}
	for _, c := range []struct{ method, path string }{
		{"PUT", "/id/ark:/12345/x5o?bogus=1"},
		{"PUT", "/id/bogus"},
		{"POST", "/id/ark:/12345/x5o?bogus=1"},
		{"POST", "/shoulder/ark:/12345/x5?bogus=1"},
		{"POST", "/shoulder/bogus"},
	} {
		s.expect(s.call(c.method, c.path, "no colon\n", "basic", alice), http.StatusBadRequest, "error: bad request - ANVL parse error (no colon in line)")
	}
	s.expect(s.call("PUT", "/id/bogus?bogus=1", "", "basic", alice), http.StatusBadRequest, "error: bad request - unrecognized URL query parameter 'bogus'")
	s.expect(s.call("GET", "/id/ark:/12345/x5o", "", "basic", alice), http.StatusBadRequest, "error: bad request - no such identifier")
}

// TestEZIDMintNoSuchShoulder: a shoulder with no minter is "no such
// shoulder" for anyone signed in, as EZID's server looks the shoulder up
// before it checks who may create under it; one with a minter that the
// person may not use is "forbidden".
func TestEZIDMintNoSuchShoulder(t *testing.T) {
	s := startEZIDSite(t, boltStore(t), "", "")
	for _, who := range []string{alice, bob} {
		s.expect(s.call("POST", "/shoulder/ark:/12345/z9", "_target: https://example.org/z\n", "basic", who), http.StatusBadRequest, "error: bad request - no such shoulder")
		s.expect(s.call("POST", "/shoulder/ark:/99999/fk4", "", "basic", who), http.StatusBadRequest, "error: bad request - no such shoulder")
	}
	s.expect(s.call("POST", "/shoulder/ark:/12345/x5", "", "basic", bob), http.StatusForbidden, "error: forbidden")
	s.expect(s.call("POST", "/shoulder/ark:/12345/y7", "", "basic", alice), http.StatusForbidden, "error: forbidden")
}
