package caddytest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// Record is the JSON form of a metadata answer.
type Record struct {
	ID         string            `json:"id"`
	Normalized string            `json:"normalized"`
	URL        string            `json:"url"`
	Status     int               `json:"status"`
	Target     string            `json:"target"`
	Resolution string            `json:"resolution"`
	Via        string            `json:"via"`
	Suffix     string            `json:"suffix"`
	Meta       map[string]string `json:"meta"`
	Policy     *struct {
		Prefix    string `json:"prefix"`
		Statement string `json:"statement"`
	} `json:"policy"`
	Reason   string `json:"reason"`
	Resolver string `json:"resolver"`
}

// DecodeRecord decodes a 200 JSON metadata answer (?info with Accept:
// application/json) into a Record, refusing fields Record does not know.
func DecodeRecord(t *testing.T, got Answer) Record {
	t.Helper()
	if got.Status != 200 || got.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("got %d %q: %s", got.Status, got.Header.Get("Content-Type"), got.Body)
	}
	var rec Record
	dec := json.NewDecoder(strings.NewReader(got.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		t.Fatalf("decoding %s: %v", got.Body, err)
	}
	return rec
}

// Links returns the targets of the answer's Link headers by relation.
func Links(got Answer) map[string][]string {
	out := map[string][]string{}
	parsed, err := testkit.ParseLinkHeader(got.Header.Values("Link"), false)
	if err != nil {
		out["unparsable"] = []string{err.Error()}
		return out
	}
	for _, l := range parsed {
		for _, rel := range l.Rels() {
			out[rel] = append(out[rel], l.Target)
		}
	}
	return out
}

// Accept headers of the tests' requests: JSON, and a browser's.
var (
	// AcceptJSON asks for JSON.
	AcceptJSON = http.Header{"Accept": {"application/json"}}
	// AcceptHTML asks as a browser does.
	AcceptHTML = http.Header{"Accept": {"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}}
)
