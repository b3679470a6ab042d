package docs

import (
	"io"
	"net/http"
	"regexp"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// withdrawnTwice finds a withdrawal sentence whose reason says
// "withdrawn" again: "Withdrawn on 2025-01-10: Withdrawn at …".
var withdrawnTwice = regexp.MustCompile(`(?i)withdrawn(?: on [0-9-]+)?[:.] *(?:<[^>]*>)* *withdrawn`)

// The example's withdrawn ARK reads as one sentence in every text that
// states its withdrawal: the citation, BibTeX, ?info's page, and the page
// a browser gets; its reason is a phrase that reads on after
// "Withdrawn on <date>: ".
func TestExampleWithdrawalSaysWithdrawnOnce(t *testing.T) {
	t.Chdir(caddytest.ModuleRoot(t))
	addr := startExampleSite(t)
	for _, c := range []struct{ path, accept string }{
		{"/ark:12345/g5h6j7?info=citation", ""},
		{"/ark:12345/g5h6j7?info=bibtex", ""},
		{"/ark:12345/g5h6j7?info", "text/html"},
		{"/ark:12345/g5h6j7", "text/html"},
	} {
		req, err := http.NewRequest(http.MethodGet, "http://"+addr+c.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "localhost:8080"
		if c.accept != "" {
			req.Header.Set("Accept", c.accept)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if m := withdrawnTwice.Find(body); m != nil {
			t.Errorf("%s (%s): %q", c.path, resp.Header.Get("Content-Type"), m)
		}
	}
}
