package targets

import (
	"encoding/json"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestConfigValidate(t *testing.T) {
	for _, c := range []struct {
		json string
		err  string // "" for valid
	}{
		{`{}`, ""},
		{`{"interval": "1s", "host_interval": "0s", "timeout": "2s", "failures": 1, "skip": ["https://Repo.example.org:443", "ark:/12345/x5"]}`, ""},
		{`{"interval": "30d"}`, ""},
		{`{"interval": "500ms"}`, "interval 500ms: must be at least 1s"},
		{`{"failures": 101}`, "failures 101"},
		{`{"host_interval": "-1s"}`, "host_interval"},
		{`{"skip": ["https://repo.example.org/some/path"]}`, "an origin has no path"},
		{`{"skip": ["repo.example.org"]}`, "want an origin"},
		{`{"notify": "mailto:x@example.org"}`, "notify"},
		{`{"user_agent": "a\nb"}`, "one line"},
		{`{"max_rate": -1}`, "max_rate -1: must be positive"},
		{`{"max_rate": 0.5}`, ""},
		{`{"interval": "soon"}`, "soon"},
	} {
		var cfg Config
		err := json.Unmarshal([]byte(c.json), &cfg)
		if err == nil {
			err = cfg.Validate()
		}
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: %v, want %q", c.json, err, c.err)
		}
	}
	var cfg Config
	if err := json.Unmarshal([]byte(`{"skip": ["https://Repo.example.org", "ark:/12345/x5"], "interval": 3600000000000}`), &cfg); err != nil {
		t.Fatal(err)
	}
	s, err := cfg.settings("example.org")
	if err != nil {
		t.Fatal(err)
	}
	if s.interval != time.Hour || s.failures != DefaultFailures || s.hostInterval != DefaultHostInterval || !strings.Contains(s.userAgent, "caddy-ark") || !strings.Contains(s.userAgent, "example.org") {
		t.Errorf("defaults: %+v", s)
	}
	for _, c := range []struct {
		key, target string
		want        bool
	}{
		{"ark:12345/a", "https://repo.example.org:443/x", true},
		{"ark:12345/a", "http://repo.example.org/x", false},
		{"ark:12345/x5abc", "https://other.example.org/x", true},
		{"ark:12345/x6abc", "/local", false},
	} {
		if got := s.skipped(c.key, c.target); got != c.want {
			t.Errorf("skipped(%s, %s) = %v", c.key, c.target, got)
		}
	}
}

func TestPublicAddresses(t *testing.T) {
	for addr, want := range map[string]bool{
		"93.184.216.34": true, "2606:2800:220:1::1": true,
		"127.0.0.1": false, "::1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false,
		"169.254.169.254": false, "fe80::1": false, "0.0.0.0": false, "::": false, "100.64.0.1": false,
		"fd00::1": false, "::ffff:127.0.0.1": false, "224.0.0.1": false,
	} {
		if got := public(netip.MustParseAddr(addr)); got != want {
			t.Errorf("public(%s) = %v, want %v", addr, got, want)
		}
	}
}
