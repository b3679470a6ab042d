package serve

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// A browser asking for an unknown, withdrawn or malformed identifier gets
// a small HTML page; machines keep the one-line text/plain (issue 10,
// item 3).
func TestRefusalsArePagesForBrowsers(t *testing.T) {
	s := caddytest.StartSite(t, `
	ark {
		naan 12345
		organization "Example Museum"
		map ark:12345/gone 410
	}`)
	nope := s.Do(http.MethodGet, "/ark:/12345/no-pe", caddytest.AcceptHTML)
	if nope.Status != http.StatusNotFound || nope.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("404 for a browser: %d %q", nope.Status, nope.Header.Get("Content-Type"))
	}
	for _, want := range []string{"<code>ark:12345/nope</code> is not assigned on this site", `<a href="` + s.Base + `/">Example Museum</a>`, "404 Not Found: ark:12345/nope is not assigned here"} {
		if !strings.Contains(nope.Body, want) {
			t.Errorf("404 page lacks %q:\n%s", want, nope.Body)
		}
	}
	gone := s.Do(http.MethodGet, "/ark:12345/gone", caddytest.AcceptHTML)
	if gone.Status != http.StatusGone || !strings.Contains(gone.Body, `<a href="`+s.Base+`/ark:12345/gone?info">its metadata</a>`) {
		t.Errorf("410 page: %d\n%s", gone.Status, gone.Body)
	}
	bad := s.Do(http.MethodGet, "/ark:99999/x", caddytest.AcceptHTML)
	if bad.Status != http.StatusBadRequest || !strings.Contains(bad.Body, "<h1>Bad Request</h1>") || !strings.Contains(bad.Body, "NAAN 99999") {
		t.Errorf("400 page: %d\n%s", bad.Status, bad.Body)
	}
	for _, accept := range []http.Header{nil, {"Accept": {"*/*"}}, caddytest.AcceptJSON} {
		got := s.Do(http.MethodGet, "/ark:12345/nope", accept)
		if got.Body != "404 Not Found: ark:12345/nope is not assigned here\n" || got.Header.Get("Vary") != "Accept" {
			t.Errorf("Accept %v: got %q (Vary %q), want the one-line text", accept, got.Body, got.Header.Get("Vary"))
		}
	}
}

// A site's handle_errors block takes the refusals over, with the status
// and the reason as placeholders.
func TestHandleErrorsTakesOverRefusals(t *testing.T) {
	s := caddytest.StartSite(t, `
	ark {
		naan 12345
		map ark:12345/gone 410
	}
	handle_errors {
		respond "custom {http.error.status_code}: {http.error.message}"
	}`)
	for p, want := range map[string]string{
		"/ark:12345/nope":      "custom 404: ark:12345/nope is not assigned here",
		"/ark:12345/gone":      "custom 410: ark:12345/gone has been withdrawn; it will not be assigned again",
		"/ark:99999/x":         "custom 400: ",
		"/ark:12345/nope?info": "custom 404: ark:12345/nope is not assigned here",
	} {
		got := s.Get(p)
		if !strings.HasPrefix(got.Body, want) || !strings.HasPrefix(want, "custom "+strconv.Itoa(got.Status)) {
			t.Errorf("%s: got %d %q, want handle_errors' %q", p, got.Status, got.Body, want)
		}
	}
	if got := s.Do(http.MethodPost, "/ark:12345/nope", nil); got.Header.Get("Allow") != "GET, HEAD" || !strings.HasPrefix(got.Body, "custom 405") {
		t.Errorf("POST: got %q, Allow %q", got.Body, got.Header.Get("Allow"))
	}
}

// organization names who makes the commitment in ?info, and the HTML
// page links it to the site's home page (issue 10, item 6).
func TestOrganizationNamesTheCommitment(t *testing.T) {
	s := caddytest.StartSite(t, `
	ark {
		organization "Example Museum"
		map ark:12345/x5 https://repo.example.org/x5
	}`)
	anvl := s.Get("/ark:12345/x5?info")
	if !strings.Contains(anvl.Body, "erc-support:\nwho: Example Museum\n") {
		t.Errorf("ANVL commitment:\n%s", anvl.Body)
	}
	page := s.Do(http.MethodGet, "/ark:12345/x5?info", caddytest.AcceptHTML)
	if !strings.Contains(page.Body, `<a href="`+s.Base+`/">Example Museum</a>`) {
		t.Errorf("HTML page does not link the organization home:\n%s", page.Body)
	}
}
