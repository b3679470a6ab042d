package answer

import (
	"slices"
	"testing"

	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/table"
)

// An identifier without metadata gets, from its bare header, the same
// Link header that the full build from its record gives when it
// advertises only ?info (the default for such an identifier), served in
// place or not, under a base of any length; one with metadata, or with
// defaults over its NAAN, is built in full.
func TestBareLinkHeaderIsTheFullOne(t *testing.T) {
	var h Answerer
	if err := h.Provision(Config{MetadataDefaults: []MetadataDefaults{{Prefix: "ark:99166", Meta: map[string]string{"license": "CC0-1.0"}}}}); err != nil {
		t.Fatal(err)
	}
	resolution := func(key string, out resolve.Outcome, meta map[string]string) *resolve.Resolution {
		a, err := normalize.ParseARK(key)
		if err != nil {
			t.Fatal(err)
		}
		return &resolve.Resolution{Key: key, Ark: a, IsARK: true, Outcome: out, How: "exact",
			Entry: &table.Assignment{Meta: meta}}
	}
	for _, base := range []string{"", "https://ark.example.org", "https://ark.example.org/" + string(make([]byte, 120))} {
		for _, out := range []resolve.Outcome{resolve.OutcomeRedirect, resolve.OutcomeInPlace, resolve.OutcomeGone, resolve.OutcomeRelated} {
			at := info.Links{Base: base}
			res := resolution("ark:12345/x5wf6789", out, nil)
			bare, ok := h.bareLinkHeader(at, res)
			subject, _ := h.describe(at, res, "")
			full := subject.Header(nil, 1024)
			if ok && !slices.Equal([]string{bare}, full) {
				t.Errorf("base %q, %v: bare %q, full %q", base, out, bare, full)
			}
			if !ok && len(base) < 100 {
				t.Errorf("base %q, %v: no bare header", base, out)
			}
		}
	}
	for _, res := range []*resolve.Resolution{
		resolution("ark:12345/x5wf6789", resolve.OutcomeRedirect, map[string]string{"type": "Dataset"}),
		resolution("ark:99166/x5wf6789", resolve.OutcomeRedirect, nil),
	} {
		if _, ok := h.bareLinkHeader(info.Links{Base: "https://ark.example.org"}, res); ok {
			t.Errorf("%s with metadata %v: a bare header", res.Key, res.Entry.Meta)
		}
	}
}
