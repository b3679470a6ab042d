package ark

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// A browser asking for an unknown, withdrawn or malformed identifier gets
// a small HTML page; machines keep the one-line text/plain (issue 10,
// item 3).
func TestRefusalsArePagesForBrowsers(t *testing.T) {
	s := startSite(t, `
	ark {
		naan 12345
		organization "Example Museum"
		map ark:12345/gone 410
	}`)
	nope := s.do(http.MethodGet, "/ark:/12345/no-pe", acceptHTML)
	if nope.status != http.StatusNotFound || nope.header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("404 for a browser: %d %q", nope.status, nope.header.Get("Content-Type"))
	}
	for _, want := range []string{"<code>ark:12345/nope</code> is not assigned on this site", `<a href="` + s.base + `/">Example Museum</a>`, "404 Not Found: ark:12345/nope is not assigned here"} {
		if !strings.Contains(nope.body, want) {
			t.Errorf("404 page lacks %q:\n%s", want, nope.body)
		}
	}
	gone := s.do(http.MethodGet, "/ark:12345/gone", acceptHTML)
	if gone.status != http.StatusGone || !strings.Contains(gone.body, `<a href="`+s.base+`/ark:12345/gone?info">its metadata</a>`) {
		t.Errorf("410 page: %d\n%s", gone.status, gone.body)
	}
	bad := s.do(http.MethodGet, "/ark:99999/x", acceptHTML)
	if bad.status != http.StatusBadRequest || !strings.Contains(bad.body, "<h1>Bad Request</h1>") || !strings.Contains(bad.body, "NAAN 99999") {
		t.Errorf("400 page: %d\n%s", bad.status, bad.body)
	}
	for _, accept := range []http.Header{nil, {"Accept": {"*/*"}}, acceptJSON} {
		got := s.do(http.MethodGet, "/ark:12345/nope", accept)
		if got.body != "404 Not Found: ark:12345/nope is not assigned here\n" || got.header.Get("Vary") != "Accept" {
			t.Errorf("Accept %v: got %q (Vary %q), want the one-line text", accept, got.body, got.header.Get("Vary"))
		}
	}
}

// A site's handle_errors block takes the refusals over, with the status
// and the reason as placeholders.
func TestHandleErrorsTakesOverRefusals(t *testing.T) {
	s := startSite(t, `
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
		got := s.get(p)
		if !strings.HasPrefix(got.body, want) || !strings.HasPrefix(want, "custom "+strconv.Itoa(got.status)) {
			t.Errorf("%s: got %d %q, want handle_errors' %q", p, got.status, got.body, want)
		}
	}
	if got := s.do(http.MethodPost, "/ark:12345/nope", nil); got.header.Get("Allow") != "GET, HEAD" || !strings.HasPrefix(got.body, "custom 405") {
		t.Errorf("POST: got %q, Allow %q", got.body, got.header.Get("Allow"))
	}
}

// organization names who makes the commitment in ?info, and the HTML
// page links it to the site's home page (issue 10, item 6).
func TestOrganizationNamesTheCommitment(t *testing.T) {
	s := startSite(t, `
	ark {
		organization "Example Museum"
		map ark:12345/x5 https://repo.example.org/x5
	}`)
	anvl := s.get("/ark:12345/x5?info")
	if !strings.Contains(anvl.body, "erc-support:\nwho: Example Museum\n") {
		t.Errorf("ANVL commitment:\n%s", anvl.body)
	}
	page := s.do(http.MethodGet, "/ark:12345/x5?info", acceptHTML)
	if !strings.Contains(page.body, `<a href="`+s.base+`/">Example Museum</a>`) {
		t.Errorf("HTML page does not link the organization home:\n%s", page.body)
	}
}
