package tables

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddyserver/caddy/v2"
)

func TestBadTablesFailTheLoadAndNameTheEntry(t *testing.T) {
	conflict := testkit.WriteFile(t, "conflict.json", `{"entries": [
  {"id": "ark:12345/x5wf6789", "target": "/a"},
  {"id": "ark:12345/b2c4d6", "target": "/b"},
  {"id": "ARK:/12345/x5-wf-6789", "target": "/a"},
  {"id": "ark:/12345/x5wf-6789", "target": "/c"}
]}`)
	for name, tc := range map[string]struct {
		table string
		want  []string
	}{
		"equivalent ids, different targets": {conflict, []string{conflict + ":5: entry 3", `"ark:/12345/x5wf-6789" is ark:12345/x5wf6789`, conflict + " entry 0", `"/a", not "/c"`}},
		"permanent redirect":                {testkit.WriteFile(t, "301.json", `{"entries": [{"id": "ark:12345/x", "target": "https://e.org/", "status": 301}]}`), []string{":1: entry 0", "permanent redirects"}},
		"308 too":                           {testkit.WriteFile(t, "308.json", "{\"entries\": [\n{\"id\": \"ark:12345/y\", \"target\": \"/y\"},\n{\"id\": \"ark:12345/x\", \"target\": \"https://e.org/\", \"status\": 308}]}"), []string{":3: entry 1", "permanent redirects"}},
		"unknown status":                    {testkit.WriteFile(t, "s.json", `{"entries": [{"id": "ark:12345/x", "target": "/x", "status": 299}]}`), []string{"entry 0", "status 299"}},
		"bad target":                        {testkit.WriteFile(t, "t.json", `{"entries": [{"id": "ark:12345/x", "target": "ftp://e.org/x"}]}`), []string{"entry 0", "neither a path"}},
		"the checker's name for the site":   {testkit.WriteFile(t, "i.json", `{"entries": [{"id": "ark:12345/x", "target": "http://site.internal.invalid/admin"}]}`), []string{"i.json:1: entry 0", "the target checker's name for the site itself"}},
		"host-relative target":              {testkit.WriteFile(t, "h.json", `{"entries": [{"id": "ark:12345/x", "target": "//evil.org/x"}]}`), []string{"entry 0", `starts with "//"`}},
		"pseudo-ARK id":                     {testkit.WriteFile(t, "p.json", `{"entries": [{"id": "ark:12345", "target": "/x"}]}`), []string{"entry 0", "no Name"}},
		"NAAN 99999":                        {testkit.WriteFile(t, "n.json", `{"entries": [{"id": "ark:99999/x", "target": "/x"}]}`), []string{"entry 0", "reserved for invalid ARKs"}},
		"unknown field":                     {testkit.WriteFile(t, "f.json", `{"entries": [{"id": "ark:12345/x", "target": "/x", "stauts": 302}]}`), []string{"entry 0", "stauts"}},
		"not JSON":                          {testkit.WriteFile(t, "j.json", "{\"entries\": [\n{\"id\": \"ark:12345/x\",, }]}"), []string{"j.json:2"}},
		"no entries":                        {testkit.WriteFile(t, "e.json", `{"rows": []}`), []string{`found the key "rows": a table is a JSON object {"entries": [...]}`}},
		"missing file":                      {"/nonexistent/arks.json", []string{"/nonexistent/arks.json"}},
	} {
		s := &caddytest.Site{T: t}
		err := s.Load("ark {\n\ttable " + tc.table + "\n}")
		if err == nil {
			t.Errorf("%s: the config loaded", name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", name, err, w)
			}
		}
	}
}

func TestBadCaddyfileMapsAreReportedWithTheirLine(t *testing.T) {
	// The test Caddyfile has global options and the site's first line before body.
	firstLine := strings.Count(caddytest.GlobalOptions+"\n:1 {\n\tbind 127.0.0.1\n", "\n") + 1
	conflict := fmt.Sprintf("%s:%d with a different target (\"/x\", not \"/y\")", "Caddyfile", firstLine+1)
	for body, want := range map[string][]string{
		"ark {\n\tmap ark:12345/x /x\n\tmap ark:12345/-x /y\n}":             {conflict},
		"ark {\n\tmap ark:12345/x https://e.org/x 301\n}":                   {"permanent redirects"},
		"ark {\n\tmap ark:12345 /x\n}":                                      {"no Name"},
		"ark {\n\tshoulder ark:12345/t3 https://{http.ark.blade}.e.org/\n}": {"scheme and host"},
		"ark {\n\tmap ark:12345/x /x {\n\t\tpassthrough maybe\n\t}\n}":      {"passthrough"},
		"ark {\n\tcache_size lots\n}":                                       {`cache_size: "lots" is not a positive number`},
		"ark {\n\tmax_length abc\n}":                                        {`max_length: "abc" is not a positive number`},
		"ark {\n\tfrobnicate\n}":                                            {"unknown subdirective"},
		"ark {\n\tnaan 12345 12$45\n}":                                      {`naan "12$45": bad NAAN: the NAAN may hold only letters and digits, not '$'`, fmt.Sprintf("Caddyfile:%d", firstLine+1)},
		"ark {\n\tnaan 12345/x5\n}":                                         {`naan "12345/x5": bad NAAN: a NAAN is letters and digits only, such as 12345`, fmt.Sprintf("Caddyfile:%d", firstLine+1)},
		"ark {\n\tforeign ftp://n2t.net\n}":                                 {`foreign "ftp://n2t.net": must be an absolute http(s) URL or 404`, fmt.Sprintf("Caddyfile:%d", firstLine+1)},
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

// A JSON config's NAANs are checked when it loads, with errors that speak
// of the NAAN as written.
func TestBadNAANsInJSONConfigsSayWhatIsWrong(t *testing.T) {
	for naan, want := range map[string]string{
		"12$45":    `naan "12$45": bad NAAN: the NAAN may hold only letters and digits, not '$'`,
		"":         `naan "": bad NAAN: the NAAN is missing`,
		"12345/x5": `naan "12345/x5": bad NAAN: a NAAN is letters and digits only, such as 12345`,
	} {
		handler, _ := json.Marshal(map[string]any{"handler": "ark", "naans": []string{"12345", naan}})
		cfg := fmt.Sprintf(`{"admin": {"disabled": true, "config": {"persist": false}}, "logging": {"logs": {"default": {"writer": {"output": "discard"}}}},
			"apps": {"http": {"servers": {"s": {"listen": ["127.0.0.1:%d"], "routes": [{"handle": [%s]}]}}}}}`, caddytest.FreePort(t), handler)
		err := caddy.Load([]byte(cfg), true)
		if err == nil {
			_ = caddy.Stop()
			t.Errorf("%q: the config loaded", naan)
			continue
		}
		if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "prefix") {
			t.Errorf("%q: got %v, want %s", naan, err, want)
		}
	}
}

func TestAFailedReloadKeepsTheRunningConfig(t *testing.T) {
	s := caddytest.StartSite(t, "ark {\n\tmap ark:12345/x5wf6789 https://repo.example.org/a\n}")
	if err := s.Load("ark {\n\tmap ark:12345/x5wf6789 https://repo.example.org/b 308\n}"); err == nil {
		t.Fatal("a config with a 308 loaded")
	}
	if got := s.Get("/ark:12345/x5wf6789"); got.Status != 302 || got.Location != "https://repo.example.org/a" {
		t.Fatalf("after the failed reload: got %d %q", got.Status, got.Location)
	}
}

func TestReloadPicksUpTableEditsAndNeverServesOldAnswers(t *testing.T) {
	path := testkit.WriteFile(t, "arks.json", `{"entries": [{"id": "ark:12345/x5wf6789", "target": "https://repo.example.org/old"}]}`)
	body := "ark {\n\ttable " + path + "\n\tforeign 404\n}"
	s := caddytest.StartSite(t, body)
	for range 3 { // warm the cache: a repaired spelling and a miss are cached from their second request
		for _, p := range []string{"/ark:12345/x5wf6789", "/ark:/12345/x5-wf6789"} {
			if got := s.Get(p); got.Location != "https://repo.example.org/old" {
				t.Fatalf("before: %s: %q", p, got.Location)
			}
		}
		s.Get("/ark:12345/newone")
	}
	if err := os.WriteFile(path, []byte(`{"entries": [
		{"id": "ark:12345/x5wf6789", "target": "https://repo.example.org/new"},
		{"id": "ark:12345/newone", "target": "https://repo.example.org/newone"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Load(body); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/ark:12345/x5wf6789", "/ark:/12345/x5-wf6789"} {
		if got := s.Get(p); got.Location != "https://repo.example.org/new" {
			t.Errorf("after reload: %s: got %q", p, got.Location)
		}
	}
	if got := s.Get("/ark:12345/newone"); got.Location != "https://repo.example.org/newone" {
		t.Errorf("a cached miss survived the reload: got %d %q", got.Status, got.Location)
	}
}

// The examples' Caddyfile and JSON twin must say the same thing, and the
// JSON must run.
func TestExamplesAdaptRoundTrip(t *testing.T) {
	t.Chdir(caddytest.ModuleRoot(t))
	caddyfile, err := os.ReadFile("examples/Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	adapted, err := caddytest.AdaptCaddyfile(string(caddyfile), "examples/Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	// table_stamp follows the table file's modification time, which a
	// checkout sets; the JSON twin leaves it out.
	adapted = regexp.MustCompile(`"table_stamp":"[0-9a-f]+",?`).ReplaceAll(adapted, nil)
	twin, err := os.ReadFile("examples/caddy.json")
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	if err := json.Unmarshal(adapted, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(twin, &b); err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Fatalf("examples/caddy.json differs from adapting examples/Caddyfile:\n%s\n%s", ja, jb)
	}
}
