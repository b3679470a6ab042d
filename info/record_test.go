package info_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddy-ark/caddy-ark/table"
)

// resolveWith resolves core on a site of NAAN 12345 whose bbolt store, in
// a temporary directory, holds bs.
func resolveWith(t *testing.T, core string, bs ...store.Binding) *resolve.Resolution {
	t.Helper()
	s := testkit.Provision(t, &bolt.Store{Path: filepath.Join(t.TempDir(), "ark.db")})
	for _, b := range bs {
		if _, err := s.Apply(context.Background(), store.Write{Binding: b, By: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	tbl, err := table.Load(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := resolve.New(resolve.Options{Table: tbl, NAANs: []string{"12345"}, Store: s, MaxLength: 1024})
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	return rs.Resolve(context.Background(), core)
}

// anvlElement is one element of an ANVL record.
type anvlElement struct{ name, value string }

// anvlRecords reads text as ANVL: records separated by blank lines, each
// element "name: value" starting a line, a line starting with white space
// continuing the element before it.
func anvlRecords(t *testing.T, text string) [][]anvlElement {
	t.Helper()
	var records [][]anvlElement
	inRecord := false
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		switch {
		case line == "":
			inRecord = false
		case line[0] == ' ' || line[0] == '\t':
			if !inRecord {
				t.Fatalf("a continuation line begins a record: %q", line)
			}
			r := records[len(records)-1]
			r[len(r)-1].value += " " + strings.TrimSpace(line)
		default:
			name, value, ok := strings.Cut(line, ":")
			if !ok {
				t.Fatalf("not an element: %q", line)
			}
			if !inRecord {
				records, inRecord = append(records, nil), true
			}
			records[len(records)-1] = append(records[len(records)-1], anvlElement{name, strings.TrimSpace(value)})
		}
	}
	return records
}

// values returns the values of the elements called name in r.
func values(r []anvlElement, name string) []string {
	var out []string
	for _, e := range r {
		if e.name == name {
			out = append(out, e.value)
		}
	}
	return out
}

// The record of a withdrawn binding of the store says so, with the
// withdrawal's reason, in JSON and ANVL, and a value with a newline cannot
// forge an element of its own.
func TestRecordOfAWithdrawnBinding(t *testing.T) {
	res := resolveWith(t, "ark:/12345/x5w1", store.Binding{Key: "ark:12345/x5w1", Target: "https://example.org/w1", Status: http.StatusGone,
		Reason: "duplicate of ark:12345/x5w2", Meta: map[string]string{"who": "Ada\nwhat: forged"}})
	at := info.Links{Base: "https://ids.example.org", Who: "Example Museum"}
	rec := info.NewRecord(at, "ark:/12345/x5w1", res, "", nil)
	if !rec.Withdrawn() {
		t.Fatal("the record of a 410 is not withdrawn")
	}
	data, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		ID, Normalized, URL, Reason, Resolution string
		Status                                  int
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Status != http.StatusGone || got.Normalized != "ark:12345/x5w1" || got.URL != "https://ids.example.org/ark:12345/x5w1" ||
		got.Reason != "duplicate of ark:12345/x5w2" || got.Resolution != "exact" {
		t.Errorf("JSON: %s", data)
	}
	text := info.ANVL(rec)
	records := anvlRecords(t, text)
	if len(records) != 2 {
		t.Fatalf("ANVL: %d records, want the ERC and the details:\n%s", len(records), text)
	}
	erc := records[0]
	if who := values(erc, "who"); len(who) != 2 || who[0] != "Ada what: forged" || who[1] != "Example Museum" {
		t.Errorf("who: %q, want the folded value, then the site in erc-support:\n%s", who, text)
	}
	if what := values(erc, "what"); len(what) != 2 || what[0] != "(:unav)" {
		t.Errorf("what: %q: a value with a newline forged an element:\n%s", what, text)
	}
	if s := values(records[1], "status"); len(s) != 1 || s[0] != "410 Gone" {
		t.Errorf("details: status %q", s)
	}
	if r := values(records[1], "reason"); len(r) != 1 || r[0] != "duplicate of ark:12345/x5w2" {
		t.Errorf("details: reason %q", r)
	}
}

// A record reached through an ancestor says so, with the suffix appended,
// and the answer's Link headers point at the metadata of ARKs only.
func TestRecordInheritedAndLinks(t *testing.T) {
	res := resolveWith(t, "ark:12345/x5p/page", store.Binding{Key: "ark:12345/x5p", Target: "https://example.org/p", Status: http.StatusFound, Passthrough: true})
	at := info.Links{Base: "https://ids.example.org"}
	rec := info.NewRecord(at, "ark:12345/x5p/page", res, res.Target, nil)
	if rec.Resolution != "inherited" || rec.Via != "ark:12345/x5p" || rec.Suffix != "/page" || rec.Target != "https://example.org/p/page" {
		t.Errorf("inherited record: %+v", rec)
	}
	h := http.Header{}
	at.AddLinks(h, res)
	if links := h.Values("Link"); len(links) != 1 || links[0] != `<https://ids.example.org/ark:12345/x5p/page?info>; rel="describedby"` {
		t.Errorf("Link: %q", links)
	}
	urn := resolveWith(t, "urn:isbn:9780000000001", store.Binding{Key: "urn:isbn:9780000000001", Target: "https://example.org/book", Status: http.StatusFound})
	h = http.Header{}
	at.AddLinks(h, urn)
	if links := h.Values("Link"); len(links) != 0 || urn.Outcome != resolve.OutcomeRedirect {
		t.Errorf("a URN (%v): Link %q, want none (?info is not URN syntax)", urn.Outcome, links)
	}
}
