package docsample

import (
	"slices"
	"testing"
)

func TestWords(t *testing.T) {
	for cmd, want := range map[string][]string{
		`curl -i http://localhost:8080/ark:12345/x5`:                  {"curl", "-i", "http://localhost:8080/ark:12345/x5"},
		`curl -H 'Accept: text/x-bibliography; style=apa' http://h/a`: {"curl", "-H", "Accept: text/x-bibliography; style=apa", "http://h/a"},
		`curl  -d "{\"a\": 1}"`:                                       nil,
		`curl -d '{"target": "x"}'   http://h/`:                       {"curl", "-d", `{"target": "x"}`, "http://h/"},
		`a"b c"'d'`:                                                   {"ab cd"},
	} {
		got, err := Words(cmd)
		if want == nil {
			if err == nil {
				t.Errorf("%s: split as %q, want an error", cmd, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: %q, %v; want %q", cmd, got, err, want)
		}
	}
	for _, cmd := range []string{"curl x | head", "curl $URL", "curl 'x", "curl x > f", "curl `x`", "curl x # y"} {
		if _, err := Words(cmd); err == nil {
			t.Errorf("%s: no error", cmd)
		}
	}
}

func TestIsFullCaddyfile(t *testing.T) {
	for body, want := range map[string]bool{
		"{\n\tadmin off\n}\n:8080 {\n}":       true,
		"# a comment\n\n:8080 {\n\tark\n}":    true,
		"example.org {\n\tark\n}":             true,
		"ark {\n\tnaan 12345\n}":              false,
		"\troot * site\n\tark\n\tfile_server": false,
	} {
		if got := IsFullCaddyfile(body); got != want {
			t.Errorf("%q: %v, want %v", body, got, want)
		}
	}
}
