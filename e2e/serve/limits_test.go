package serve

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddyserver/caddy/v2"
)

// Every bound is checked before anything is allocated by it: while the
// Caddyfile is parsed, and in a JSON config before Provision builds the
// cache. A cache_size of 10^12 used to run the server out of memory.
func TestBoundsAreRefusedBeforeTheyAllocate(t *testing.T) {
	for body, want := range map[string]string{
		"ark {\n\tcache_size 999999999999\n}": "cache_size: 999999999999 is more than the limit, 1048576",
		"ark {\n\tcache_size 100000000\n}":    "cache_size: 100000000 is more than the limit, 1048576",
		"ark {\n\tmax_length 100000\n}":       "max_length: 100000 is more than the limit, 8192",
		"ark {\n\twatch 1ns\n}":               "watch: 1ns is too short: the shortest interval is 100ms",
	} {
		s := &caddytest.Site{T: t}
		if err := s.Load(body); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error saying %q", body, err, want)
		}
	}
	for field, want := range map[string]string{
		`"cache_size": 999999999999`: "cache_size 999999999999: must be between 1 and 1048576",
		`"max_length": 100000`:       "max_length 100000: must be between 1 and 8192",
		`"watch_interval": 1`:        "watch_interval 1ns: must be at least 100ms",
	} {
		cfg := fmt.Sprintf(`{"admin": {"disabled": true, "config": {"persist": false}}, "logging": {"logs": {"default": {"writer": {"output": "discard"}}}},
			"apps": {"http": {"servers": {"s": {"listen": ["127.0.0.1:%d"], "routes": [{"handle": [{"handler": "ark", %s}]}]}}}}}`, caddytest.FreePort(t), field)
		err := caddy.Load([]byte(cfg), true)
		if err == nil {
			_ = caddy.Stop()
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error saying %q", field, err, want)
		}
	}
	s := caddytest.StartSite(t, "ark {\n\tcache_size 1048576\n\tmax_length 8192\n\twatch 100ms\n\tmap ark:12345/x https://e.org/x\n}")
	s.ExpectRedirects(map[string]string{"/ark:12345/x": "https://e.org/x"})
}

// Strings in a table are refused while they are read once they pass their
// limit, and so are too many or too long metadata; the limits hold for
// Caddyfile maps too.
func TestOverLongStringsAndMetadataAreRefused(t *testing.T) {
	long := strings.Repeat("a", 40000)
	metaKeys := map[string]string{}
	for i := range 65 {
		metaKeys[fmt.Sprint("k", i)] = "v"
	}
	many, _ := json.Marshal(metaKeys)
	for name, tc := range map[string]struct{ table, want string }{
		"long id":         {`{"entries": [{"id": "ark:12345/` + long + `", "target": "/x"}]}`, ":1: entry 0: id: longer than 32768 bytes"},
		"long target":     {`{"entries": [{"id": "ark:12345/x", "target": "/` + long + `"}]}`, ":1: entry 0: target: longer than 8192 bytes"},
		"long meta value": {`{"entries": [{"id": "ark:12345/x", "target": "/x", "meta": {"what": "` + long + `"}}]}`, `:1: entry 0: meta "what": longer than 16384 bytes`},
		"long meta key":   {`{"entries": [{"id": "ark:12345/x", "target": "/x", "meta": {"` + long[:300] + `": "v"}}]}`, ":1: entry 0: meta: a key: longer than 256 bytes"},
		"many meta keys":  {`{"entries": [{"id": "ark:12345/x", "target": "/x", "meta": ` + string(many) + `}]}`, ":1: entry 0: meta: more than 64 keys"},
	} {
		s := &caddytest.Site{T: t}
		path := testkit.WriteFile(t, "t.json", tc.table)
		if err := s.Load("ark {\n\ttable " + path + "\n}"); err == nil || !strings.Contains(err.Error(), path+tc.want) {
			t.Errorf("%s: got %.300v, want %q", name, err, tc.want)
		}
	}
	s := &caddytest.Site{T: t}
	err := s.Load("ark {\n\tmap ark:12345/x /x {\n\t\twhat " + long + "\n\t}\n}")
	if err == nil || !strings.Contains(err.Error(), `meta "what": value longer than 16384 bytes`) {
		t.Errorf("a long meta value in a map: got %.300v", err)
	}
}

// A repeated key in an entry or its metadata fails the load with the file,
// line and entry: with the last one winning, a reviewer could read one
// target while the server redirected to another.
func TestRepeatedKeysAreRefused(t *testing.T) {
	for name, tc := range map[string]struct{ table, want string }{
		"target": {"{\"entries\": [\n{\"id\": \"ark:12345/d1\",\n \"target\": \"https://good.example.org/\",\n \"target\": \"https://evil.example.org/\"}]}",
			`:4: entry 0: "target" appears twice in the entry`},
		"id": {"{\"entries\": [{\"id\": \"ark:12345/d0\", \"target\": \"/x\"},\n{\"id\": \"ark:12345/d1\", \"id\": \"ark:12345/d2\", \"target\": \"/x\"}]}",
			`:2: entry 1: "id" appears twice in the entry`},
		"meta": {"{\"entries\": [{\"id\": \"ark:12345/d1\", \"target\": \"/x\", \"meta\": {\"who\": \"A\", \"who\": \"B\"}}]}",
			`:1: entry 0: meta "who" appears twice`},
	} {
		path := testkit.WriteFile(t, "t.json", tc.table)
		s := &caddytest.Site{T: t}
		if err := s.Load("ark {\n\ttable " + path + "\n}"); err == nil || !strings.Contains(err.Error(), path+tc.want) {
			t.Errorf("%s: got %v, want %q", name, err, tc.want)
		}
		_, errOut, status := caddytest.RunCaddy(t, "", "ark", "check", path)
		if status != 1 || !strings.Contains(errOut, path+tc.want) {
			t.Errorf("%s: check: status %d, stderr %q", name, status, errOut)
		}
	}
	s := &caddytest.Site{T: t}
	err := s.Load("ark {\n\tmap ark:12345/x /x {\n\t\twho A\n\t\twho B\n\t}\n}")
	if err == nil || !strings.Contains(err.Error(), `map ark:12345/x: meta "who" appears twice`) {
		t.Errorf("a repeated meta key in a map: got %v", err)
	}
}
