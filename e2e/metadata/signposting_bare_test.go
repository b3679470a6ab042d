package metadata

import (
	"net/http"
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

// The same rule on the other sources of identifiers: a compiled table, and
// the store, where an identifier gains metadata (and the formats) with a
// PATCH and loses them again when its metadata is removed.
func TestBareRuleOnCompiledTablesAndTheStore(t *testing.T) {
	rich := []string{"text/plain", "application/vnd.datacite.datacite+xml", "application/ld+json", "application/x-bibtex"}
	compiled := caddytest.CompileFile(t, `{"entries": [
		{"id": "ark:12345/cplain", "target": "https://repo.example.org/cplain"},
		{"id": "ark:12345/crich", "target": "https://repo.example.org/crich", "meta": {"what": "A record"}}]}`)
	s := caddytest.StartSite(t, "ark {\n\t\tnaan 12345\n\t\ttable "+compiled+"\n\t}")
	for path, want := range map[string][]string{"/ark:12345/cplain": {"text/plain"}, "/ark:/12345/c-rich": rich} {
		if types := describedTypes(t, s.Get(path)); !slices.Equal(types, want) {
			t.Errorf("compiled %s: describedby types %q, want %q", path, types, want)
		}
	}

	api := caddytest.StartAPISite(t, "")
	const id = "ark:12345/x5bare"
	if got := api.Call("PUT", "/id/"+id, "editor", `{"target": "https://repo.example.org/bare"}`); got.Status != http.StatusCreated {
		t.Fatalf("PUT: %d %s", got.Status, got.Body)
	}
	for _, step := range []struct {
		patch string
		want  []string
	}{
		{"", []string{"text/plain"}},
		{`{"meta": {"what": "Now described"}}`, rich},
		{`{"meta": {"what": null}}`, []string{"text/plain"}},
	} {
		if step.patch != "" {
			if got := api.Call("PATCH", "/id/"+id, "editor", step.patch, "Content-Type", "application/merge-patch+json"); got.Status != http.StatusOK {
				t.Fatalf("PATCH %s: %d %s", step.patch, got.Status, got.Body)
			}
		}
		for range 2 { // the second answer may come from the Link header cache
			if types := describedTypes(t, api.Get("/"+id)); !slices.Equal(types, step.want) {
				t.Errorf("store, after %q: describedby types %q, want %q", step.patch, types, step.want)
			}
		}
	}
}
