package metadata

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"

	"github.com/caddyserver/caddy/v2"
)

// A bad signposting, negotiate or metadata_defaults line is refused when
// the Caddyfile loads, with its line and why.
func TestBadMachineReadableSettingsAreReportedWithTheirLine(t *testing.T) {
	firstLine := strings.Count(caddytest.GlobalOptions+"\n:1 {\n\tbind 127.0.0.1\n", "\n") + 1
	line := func(n int) string { return fmt.Sprintf("Caddyfile:%d", firstLine+n) }
	for body, want := range map[string][]string{
		"ark {\n\tsignposting maybe\n}":                                                                                        {`signposting: "maybe": want off, or a block`, line(1)},
		"ark {\n\tsignposting {\n\t\tformats bibtex marc\n\t}\n}":                                                              {`"marc" is not a metadata format; there are [datacite`, line(2)},
		"ark {\n\tsignposting {\n\t\tcolour blue\n\t}\n}":                                                                      {`signposting: unknown subdirective "colour"`},
		"ark {\n\tnegotiate on\n}":                                                                                             {`negotiate: "on": the only setting is off`, line(1)},
		"ark {\n\tmetadata_defaults 12345 {\n\t\tlicense x\n\t}\n}":                                                            {"metadata_defaults", "12345"},
		"ark {\n\tmetadata_defaults ark:12345 {\n\t\tlicense\n\t}\n}":                                                          {"license: want a value", line(2)},
		"ark {\n\tmetadata_defaults ark:12345 {\n\t\tlicense a b\n\t}\n}":                                                      {"license: want one value", line(2)},
		"ark {\n\tmetadata_defaults ark:12345 {\n\t}\n}":                                                                       {`prefix "ark:12345": no value`},
		"ark {\n\tmetadata_defaults ark:12345 {\n\t\tlicense a\n\t\tlicense b\n\t}\n}":                                         {"license is given twice", line(3)},
		"ark {\n\tmetadata_defaults ark:12345 {\n\t\tlicense a\n\t}\n\tmetadata_defaults ark:/12-345 {\n\t\tlicense b\n\t}\n}": {"metadata_defaults ark:/12-345 is ark:12345, which already has defaults", line(4)},
	} {
		s := &caddytest.Site{T: t}
		err := s.Load(body)
		for _, w := range want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%q: got error %v, want one saying %q", body, err, w)
			}
		}
	}
}

// The JSON config's fields are checked when it loads too.
func TestBadMachineReadableJSONConfig(t *testing.T) {
	for field, want := range map[string]string{
		`"signpost_formats": ["bibtex", "marc"]`:                           `signpost_formats: "marc" is not a metadata format`,
		`"metadata_defaults": [{"prefix": "ark:12345", "meta": {}}]`:       `metadata_defaults[0]: prefix "ark:12345": no value`,
		`"metadata_defaults": [{"prefix": "x", "meta": {"license": "a"}}]`: `metadata_defaults[0]`,
	} {
		var handler map[string]any
		if err := json.Unmarshal([]byte(`{"handler": "ark", `+field+`}`), &handler); err != nil {
			t.Fatal(err)
		}
		h, _ := json.Marshal(handler)
		cfg := fmt.Sprintf(`{"admin": {"disabled": true, "config": {"persist": false}}, "logging": {"logs": {"default": {"writer": {"output": "discard"}}}},
			"apps": {"http": {"servers": {"s": {"listen": ["127.0.0.1:%d"], "routes": [{"handle": [%s]}]}}}}}`, caddytest.FreePort(t), h)
		err := caddy.Load([]byte(cfg), true)
		if err == nil {
			_ = caddy.Stop()
			t.Errorf("%s: the config loaded", field)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %s", field, err, want)
		}
	}
}

// A shoulder's defaults win over its NAAN's, and an entry's own meta over
// both.
func TestMetadataDefaultsByPrefix(t *testing.T) {
	s := caddytest.StartSite(t, `
	ark {
		map ark:12345/x5own https://e.org/own {
			license https://e.org/own-licence
		}
		map ark:12345/x5a https://e.org/a
		map ark:12345/b2 https://e.org/b
		metadata_defaults ark:12345 {
			license CC0-1.0
		}
		metadata_defaults ark:12345/x5 {
			license https://e.org/x5-licence
		}
	}`)
	for path, want := range map[string]string{
		"/ark:12345/x5own": "https://e.org/own-licence",
		"/ark:12345/x5a":   "https://e.org/x5-licence",
		"/ark:12345/b2":    "https://spdx.org/licenses/CC0-1.0",
	} {
		if got := withRel(parsedLinks(t, s.Get(path)), "license"); len(got) != 1 || got[0].Target != want {
			t.Errorf("%s: license %v, want %s", path, got, want)
		}
	}
}
