package ezid

import (
	"net/http"
	"net/url"
	"testing"
)

// TestEZIDServerStatus follows "Server status" and EZID's server on its
// subsystems parameter: each subsystem named (or all, "*") gets a line
// "<name>: up|down" after the status line, and a name EZID does not know
// is "no such subsystem".
func TestEZIDServerStatus(t *testing.T) {
	s := startEZIDSite(t, boltStore(t), "", "")
	a := s.call("GET", "/status", "")
	s.expect(a, http.StatusOK, "success: EZID is up")
	if a.Body != "success: EZID is up" {
		t.Errorf("the status line alone: %q", a.Body)
	}
	for query, want := range map[string]map[string]string{
		"*":                {"datacite": "up", "search": "up"},
		"search":           {"search": "up"},
		" datacite , ":     {"datacite": "up"},
		"datacite,search,": {"datacite": "up", "search": "up"},
	} {
		m := s.expect(s.call("GET", "/status?subsystems="+url.QueryEscape(query), ""), http.StatusOK, "success: EZID is up")
		if len(m) != len(want) {
			t.Errorf("subsystems=%q: %v, want %v", query, m, want)
		}
		for name, value := range want {
			if m[name] != value {
				t.Errorf("subsystems=%q: %s: %q, want %q (all: %v)", query, name, m[name], value, m)
			}
		}
	}
	for _, query := range []string{"bogus", "datacite,bogus", "noid"} {
		s.expect(s.call("GET", "/status?subsystems="+query, ""), http.StatusBadRequest, "error: bad request - no such subsystem")
	}
}
