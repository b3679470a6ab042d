package metadata

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// sameAnswer reports how b, from the site at bBase, differs from a, from
// the site at aBase, in what a client of a plain resolution sees: status,
// Location, body and links, each site's own address aside.
func sameAnswer(a caddytest.Answer, aBase string, b caddytest.Answer, bBase string) string {
	switch {
	case a.Status != b.Status:
		return "status"
	case strings.ReplaceAll(a.Location, aBase, "") != strings.ReplaceAll(b.Location, bBase, ""):
		return "Location"
	case strings.ReplaceAll(a.Body, aBase, "") != strings.ReplaceAll(b.Body, bBase, ""):
		return "body"
	case strings.ReplaceAll(strings.Join(a.Header.Values("Link"), ", "), aBase, "") != strings.ReplaceAll(strings.Join(b.Header.Values("Link"), ", "), bBase, ""):
		return "Link"
	}
	return ""
}

var resolvedPaths = []string{"/ark:12345/sp1", "/ark:12345/sp2", "/ark:12345/sp3", "/ark:12345/sp4", "/ark:12345/gone", "/ark:12345/bare",
	"/ark:12345/nothing", "/ark:99166/w66d60p2"}

// Browsers, curl's */*, no Accept, and every Accept that names no metadata
// type above the rest resolve exactly as without negotiation.
func TestNegotiationLeavesPlainResolutionAlone(t *testing.T) {
	accepts := []string{"", "*/*", "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
		"application/json", "text/plain", "image/png", "application/x-bibtex;q=0", "application/linkset+json;q=0.5, */*",
		"application/linkset+json, text/html", "application/*"}
	answers := func(s *caddytest.Site) map[[2]string]caddytest.Answer {
		out := map[[2]string]caddytest.Answer{}
		for _, accept := range accepts {
			for _, p := range resolvedPaths {
				var h http.Header
				if accept != "" {
					h = http.Header{"Accept": {accept}}
				}
				out[[2]string{accept, p}] = s.Do(http.MethodGet, p, h)
			}
		}
		return out
	}
	off := signpostSite(t, "negotiate off")
	want := answers(off)
	s := signpostSite(t, "")
	for k, got := range answers(s) {
		if diff := sameAnswer(want[k], off.Base, got, s.Base); diff != "" {
			t.Errorf("Accept %q, %s: the %s differs from negotiate off's: %d %q, want %d %q", k[0], k[1], diff,
				got.Status, got.Location, want[k].Status, want[k].Location)
		}
	}
}

// A client that names a metadata type above the rest gets a 303 to that
// format's own URL, for every resolved ARK, withdrawn ones too; the
// redirect and the metadata may be read from any origin.
func TestNegotiationRedirectsToMetadata(t *testing.T) {
	s := signpostSite(t, "")
	for _, c := range []struct{ path, accept, location string }{
		{"/ark:12345/sp1", "application/linkset+json", "/ark:12345/sp1?info=linkset-json"},
		{"/ark:/12345/sp-2", "application/linkset;q=0.9, */*;q=0.1", "/ark:12345/sp2?info=linkset"},
		{"/ark:12345/sp3", "text/html;q=0.5, APPLICATION/LINKSET+JSON", "/ark:12345/sp3?info=linkset-json"},
		{"/ark:12345/gone", "application/linkset+json", "/ark:12345/gone?info=linkset-json"},
		{"/ark:12345/bare", "application/linkset, */*", "/ark:12345/bare?info=linkset"},
	} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			got := s.Do(method, c.path, http.Header{"Accept": {c.accept}})
			if got.Status != http.StatusSeeOther || got.Location != s.Base+c.location {
				t.Errorf("%s %s, Accept %q: %d %q, want 303 to %s", method, c.path, c.accept, got.Status, got.Location, c.location)
				continue
			}
			if got.Header.Get("Vary") != "Accept" || got.Header.Get("Access-Control-Allow-Origin") != "*" || len(withRel(parsedLinks(t, got), "cite-as")) != 1 {
				t.Errorf("%s %s, Accept %q: headers %v", method, c.path, c.accept, got.Header)
			}
		}
		meta := s.Get(c.location)
		if meta.Status != 200 || !strings.HasPrefix(meta.Header.Get("Content-Type"), "application/linkset") ||
			meta.Header.Get("Access-Control-Allow-Origin") != "*" || meta.Header.Get("Vary") != "" {
			t.Errorf("%s: %d %v", c.location, meta.Status, meta.Header)
		}
	}
	// Unknown, foreign and refused identifiers are never metadata.
	for _, p := range []string{"/ark:12345/nothing", "/ark:99166/w66d60p2", "/ark:12345"} {
		if got := s.Do(http.MethodGet, p, http.Header{"Accept": {"application/linkset+json"}}); got.Status == http.StatusSeeOther {
			t.Errorf("%s: 303 to %s", p, got.Location)
		}
	}
}

// ?info negotiates among ERC, JSON, HTML and the metadata formats by
// RFC 9110's rules, and answers 406 listing them when Accept allows none.
func TestInfoNegotiation(t *testing.T) {
	s := signpostSite(t, "")
	for accept, want := range map[string]string{
		"":                 "text/plain; charset=utf-8",
		"*/*":              "text/plain; charset=utf-8",
		"text/*":           "text/plain; charset=utf-8",
		"application/json": "application/json",
		"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8": "text/html; charset=utf-8",
		"application/linkset+json":                                        "application/linkset+json",
		"application/linkset;q=0.9, text/plain;q=0.8":                     "application/linkset",
		"text/plain;q=0, application/json;q=0, text/html;q=0, */*;q=0.1":  "application/vnd.datacite.datacite+xml", // the first metadata format
		"application/linkset+json;q=0, application/*":                     "application/json",
		"image/png":      "406",
		"text/plain;q=0": "406",
		"text/plain;q=2": "406",
	} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			var h http.Header
			if accept != "" {
				h = http.Header{"Accept": {accept}}
			}
			got := s.Do(method, "/ark:12345/sp1?info", h)
			if want == "406" {
				if got.Status != http.StatusNotAcceptable || (method == http.MethodGet && !strings.Contains(got.Body, "application/linkset+json")) {
					t.Errorf("%s ?info, Accept %q: %d %q, want 406 listing the formats", method, accept, got.Status, got.Body)
				}
				continue
			}
			if got.Status != 200 || got.Header.Get("Content-Type") != want {
				t.Errorf("%s ?info, Accept %q: %d %q, want %q", method, accept, got.Status, got.Header.Get("Content-Type"), want)
			}
			if got.Header.Get("Vary") != "Accept" || got.Header.Get("Access-Control-Allow-Origin") != "*" || !slices.Contains(caddytest.Links(got)["describes"], s.Base+"/ark:12345/sp1") {
				t.Errorf("%s ?info, Accept %q: headers %v", method, accept, got.Header)
			}
		}
	}
	// A NAAN's policy has no metadata formats: ERC, JSON, HTML, else 406.
	s2 := caddytest.StartSite(t, `ark {
		policy ark:12345 "Permanent."
	}`)
	if got := s2.Do(http.MethodGet, "/ark:12345?info", http.Header{"Accept": {"application/linkset+json"}}); got.Status != http.StatusNotAcceptable {
		t.Errorf("policy ?info for a linkset: %d %q", got.Status, got.Body)
	}
}

// Each format has a URL of its own; a query naming no format goes to the
// target as before.
func TestFormatURLs(t *testing.T) {
	s := signpostSite(t, "")
	for _, q := range []string{"info=marc", "info=%zz", "info=1"} {
		if got := s.Get("/ark:12345/sp2?" + q); got.Status != 302 || got.Location != "https://repo.example.org/sp2?"+q {
			t.Errorf("?%s: %d %q", q, got.Status, got.Location)
		}
	}
	if got := s.Get("/ark:12345/sp2?info=bibtex&style=x"); got.Status != 200 || got.Header.Get("Content-Type") != "application/x-bibtex; charset=utf-8" {
		t.Errorf("?info=bibtex with another parameter: %d %q", got.Status, got.Header.Get("Content-Type"))
	}
	if got := s.Get("/ark:12345/nothing?info=linkset"); got.Status != 404 {
		t.Errorf("an unknown ARK's linkset: %d %q", got.Status, got.Body)
	}
	got := s.Get("/ark:/12345/gone?info=linkset-json")
	if _, err := testkit.ParseLinksetJSON([]byte(got.Body)); got.Status != 200 || err != nil {
		t.Errorf("the tombstone's linkset: %d %v", got.Status, err)
	}
	// Any other query goes to the target as before.
	if got := s.Get("/ark:12345/sp2?information=1"); got.Status != 302 || got.Location != "https://repo.example.org/sp2?information=1" {
		t.Errorf("another query: %d %q", got.Status, got.Location)
	}
}

// negotiate off: no redirect to metadata, and ?info falls back to
// text/plain when Accept allows none of its formats.
func TestNegotiateOff(t *testing.T) {
	s := signpostSite(t, "negotiate off")
	if got := s.Do(http.MethodGet, "/ark:12345/sp2", http.Header{"Accept": {"application/linkset+json"}}); got.Status != 302 {
		t.Errorf("plain ARK: %d %q", got.Status, got.Location)
	}
	if got := s.Do(http.MethodGet, "/ark:12345/sp2?info", http.Header{"Accept": {"image/png"}}); got.Status != 200 || got.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("?info: %d %q", got.Status, got.Header.Get("Content-Type"))
	}
	if got := s.Get("/ark:12345/sp2?info=linkset"); got.Status != 200 {
		t.Errorf("a format's own URL: %d", got.Status)
	}
}

// A metadata request never changes what the next plain request gets: not
// through the resolution cache, the Link header cache, nor a shared cache
// (the answers that depend on Accept say so with Vary).
func TestMetadataRequestLeavesTheNextPlainOneAlone(t *testing.T) {
	s := signpostSite(t, "")
	for _, p := range []string{"/ark:12345/sp1", "/ark:/12345/sp-2", "/ark:12345/gone"} {
		before := s.Get(p)
		for range 3 { // the caches admit a key on its second request
			if got := s.Do(http.MethodGet, p, http.Header{"Accept": {"application/linkset+json"}}); got.Status != http.StatusSeeOther {
				t.Fatalf("%s: %d", p, got.Status)
			}
			if diff := sameAnswer(before, s.Base, s.Get(p), s.Base); diff != "" {
				t.Errorf("%s: the %s changed after a metadata request", p, diff)
			}
		}
	}
}

// A client that accepts only the vendor type of schema.org's JSON-LD is
// sent to ?info=schemaorg, which answers it in that type, as ?info itself
// does; without it, ?info=schemaorg answers application/ld+json. Both
// vary by Accept.
func TestAliasTypeKeptAfterTheRedirect(t *testing.T) {
	s := signpostSite(t, "")
	const vendor = "application/vnd.schemaorg.ld+json"
	accept := http.Header{"Accept": {vendor}}
	got := s.Do(http.MethodGet, "/ark:12345/sp1", accept)
	if got.Status != http.StatusSeeOther || got.Location != s.Base+"/ark:12345/sp1?info=schemaorg" {
		t.Fatalf("Accept %s: %d %q, want 303 to ?info=schemaorg", vendor, got.Status, got.Location)
	}
	direct := s.Do(http.MethodGet, "/ark:12345/sp1?info", accept)
	for _, c := range []struct {
		path   string
		accept http.Header
		want   string
	}{
		{"/ark:12345/sp1?info=schemaorg", accept, vendor},
		{"/ark:12345/sp1?info=schemaorg", http.Header{"Accept": {"application/json;q=0.5, " + vendor}}, vendor},
		{"/ark:12345/sp1?info=schemaorg", nil, "application/ld+json"},
		{"/ark:12345/sp1?info=schemaorg", http.Header{"Accept": {"*/*"}}, "application/ld+json"},
		{"/ark:12345/sp1?info=schemaorg", http.Header{"Accept": {"application/ld+json, " + vendor + ";q=0.5"}}, "application/ld+json"},
	} {
		meta := s.Do(http.MethodGet, c.path, c.accept)
		if meta.Status != 200 || meta.Header.Get("Content-Type") != c.want || meta.Header.Get("Vary") != "Accept" {
			t.Errorf("%s, Accept %q: %d %q Vary %q, want %s varying by Accept", c.path, c.accept.Get("Accept"), meta.Status, meta.Header.Get("Content-Type"), meta.Header.Get("Vary"), c.want)
		}
		if c.want == vendor && (meta.Body != direct.Body || direct.Header.Get("Content-Type") != vendor) {
			t.Errorf("%s in %s differs from ?info in %s:\n%s\n%s", c.path, vendor, direct.Header.Get("Content-Type"), meta.Body, direct.Body)
		}
	}
}
