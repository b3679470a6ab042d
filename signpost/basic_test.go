package signpost

import (
	"slices"
	"testing"
)

// The basic links of an answer, read back by a strict RFC 8288 parser
// one value at a time: describedby ?info for an ARK, cite-as when served
// in place, none for a URN redirected; both made in one allocation.
func TestBasicLinks(t *testing.T) {
	for _, c := range []struct {
		base, key      string
		isARK, inPlace bool
		want           []string
	}{
		{"https://ark.example.org", "ark:12345/x5", true, true,
			[]string{"describedby https://ark.example.org/ark:12345/x5?info", "cite-as https://ark.example.org/ark:12345/x5"}},
		{"", "ark:12345/x5", true, false, []string{"describedby /ark:12345/x5?info"}},
		{"https://ark.example.org/resolver", "urn:nbn:de:1", false, true, []string{"cite-as https://ark.example.org/resolver/urn:nbn:de:1"}},
		{"https://ark.example.org", "urn:nbn:de:1", false, false, nil},
	} {
		links, n := BasicLinks(c.base, c.key, c.isARK, c.inPlace)
		var got []string
		for _, v := range links[:n] {
			got = append(got, linksOf(t, []string{v})...)
		}
		if !slices.Equal(got, c.want) || slices.ContainsFunc(links[n:], func(s string) bool { return s != "" }) {
			t.Errorf("%s %s ark=%v inPlace=%v: %q, want %q", c.base, c.key, c.isARK, c.inPlace, links, c.want)
		}
		if allocs := testing.AllocsPerRun(10, func() { BasicLinks(c.base, c.key, c.isARK, c.inPlace) }); allocs > 1 {
			t.Errorf("%s: %v allocations", c.key, allocs)
		}
	}
}
