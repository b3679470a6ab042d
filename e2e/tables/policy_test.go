package tables

import (
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

func TestBadPoliciesFailTheLoad(t *testing.T) {
	for body, want := range map[string]string{
		"ark {\n\tpolicy ark:12345 \"A\"\n\tpolicy ark:/12-345 \"B\"\n}": "already has a policy",
		"ark {\n\tpolicy ark:12345 Permanent: never\n}":                  "quote it",
		"ark {\n\tpolicy ark:12345 \" \"\n}":                             "statement is empty",
		"ark {\n\tpolicy ark:12345/t3.pdf \"A\"\n}":                      "without qualifier",
		"ark {\n\tpolicy urn:example:x \"A\"\n}":                         `starts with "ark:"`,
	} {
		if err := (&caddytest.Site{T: t}).Load(body); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got error %v, want one saying %q", body, err, want)
		}
	}
}

// A NAAN with a policy is this site's: its unknown ARKs are never sent to
// the foreign resolver.
func TestPolicyNAANsAreOurs(t *testing.T) {
	s := caddytest.StartSite(t, `ark {
		policy ark:67890 "Permanent."
		policy ark:13030/c7 "Permanent."
	}`)
	for p, want := range map[string]int{"/ark:67890/zz": 404, "/ark:13030/qq": 404, "/ark:99166/zz": 302} {
		if got := s.Get(p); got.Status != want {
			t.Errorf("%s: got %d %q, want %d", p, got.Status, got.Location, want)
		}
	}
}
