package oai

import (
	"slices"
	"strings"
	"testing"
)

// Every set a record lists is a setSpec of the OAI-PMH grammar that
// selects that record: parseSet of its spec is a prefix of the key, and
// nothing but the set's members has it.
func TestSetsOfAreSetSpecsThatSelectTheRecord(t *testing.T) {
	cases := map[string][]string{
		"ark:12345/x5wf6789":       {"ark", "ark:12345", "ark:12345:x5"},
		"ark:12345/bcd5/c2.v1":     {"ark", "ark:12345", "ark:12345:bcd5"},
		"ark:12345/abc":            {"ark", "ark:12345"}, // a vowel: no shoulder
		"ark:b2345/x5":             {"ark", "ark:b2345", "ark:b2345:x5"},
		"urn:nbn:de:101-2024":      {"urn", "urn:nbn"},
		"urn:isbn:978-3-16-148410": {"urn", "urn:isbn"},
	}
	for key, want := range cases {
		var specs []string
		for _, s := range setsOf(key) {
			specs = append(specs, s.spec)
			for _, el := range strings.Split(s.spec, ":") {
				if !specElement(el) {
					t.Errorf("%s: set %q: element %q is not of the setSpec grammar", key, s.spec, el)
				}
			}
			prefix, ok := parseSet(s.spec)
			if !ok || prefix != s.prefix || !strings.HasPrefix(key, prefix) {
				t.Errorf("%s: set %q selects %q, %v", key, s.spec, prefix, ok)
			}
		}
		if !slices.Equal(specs, want) {
			t.Errorf("%s: sets %v, want %v", key, specs, want)
		}
	}
	// A shoulder's prefix holds only that shoulder's names.
	prefix, _ := parseSet("ark:12345:x5")
	if strings.HasPrefix("ark:12345/x55", prefix) != true || strings.HasPrefix("ark:12345/x6", prefix) {
		t.Errorf("shoulder prefix %q", prefix)
	}
	for _, bad := range []string{"", "ark:", "ark:12345/x5", "ark:12345:a5", "ark:12345:x5:c2", "doi", "urn:nbn:de", "ark:1 2"} {
		if _, ok := parseSet(bad); ok {
			t.Errorf("%q: taken for a set", bad)
		}
	}
}
