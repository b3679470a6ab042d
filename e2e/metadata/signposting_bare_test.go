package metadata

import (
	"slices"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// describedTypes returns the media types of an answer's describedby links.
func describedTypes(t *testing.T, got caddytest.Answer) []string {
	t.Helper()
	var types []string
	for _, l := range withRel(parsedLinks(t, got), "describedby") {
		typ, _ := l.Param("type")
		types = append(types, typ)
	}
	return types
}

// By default an identifier with no metadata, of its own or by default,
// advertises only its ERC record (?info): every other format would hold
// only unknown values. One with metadata advertises the default formats,
// and formats named in the config are advertised for every identifier.
// Either way the answer is one Link field line.
func TestBareIdentifiersAdvertiseTheirRecordOnly(t *testing.T) {
	const ark = `
		naan 12345
		map ark:12345/plain https://repo.example.org/plain
		map ark:12345/rich https://repo.example.org/rich {
			what "A record"
		}`
	rich := []string{"text/plain", "application/vnd.datacite.datacite+xml", "application/ld+json", "application/x-bibtex"}
	for _, c := range []struct {
		name, extra string
		plain       []string
		rich        []string
	}{
		{"default", "", []string{"text/plain"}, rich},
		{"formats named", "signposting {\n\t\t\tformats datacite\n\t\t}", []string{"text/plain", "application/vnd.datacite.datacite+xml"},
			[]string{"text/plain", "application/vnd.datacite.datacite+xml"}},
	} {
		s := caddytest.StartSite(t, "ark {"+ark+"\n\t\t"+c.extra+"\n\t}")
		for path, want := range map[string][]string{"/ark:12345/plain": c.plain, "/ark:/12345/rich": c.rich} {
			got := s.Get(path)
			if got.Status != 302 || len(got.Header.Values("Link")) != 1 {
				t.Errorf("%s %s: %d with %d Link field lines, want 302 with one", c.name, path, got.Status, len(got.Header.Values("Link")))
			}
			if types := describedTypes(t, got); !slices.Equal(types, want) {
				t.Errorf("%s %s: describedby types %q, want %q", c.name, path, types, want)
			}
			if ls := withRel(parsedLinks(t, got), "linkset"); len(ls) != 2 {
				t.Errorf("%s %s: %d linkset links, want both media types", c.name, path, len(ls))
			}
		}
	}
}
