package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
)

// changesLink reads the since of a Link to the next page of GET changes.
var changesLink = regexp.MustCompile(`^</api/ark/changes\?[^>]*since=(\d+)[^>]*>; rel="next"$`)

// apiChanges follows GET changes?query with key from page to page, limit
// at a time, and returns every record.
func apiChanges(s *caddytest.APISite, query, key string, limit int) []store.Change {
	s.T.Helper()
	var all []store.Change
	q := query + "&limit=" + fmt.Sprint(limit)
	for pages := 0; ; pages++ {
		if pages > 100 {
			s.T.Fatal("more than 100 pages")
		}
		got := s.Call("GET", "/changes?"+q, key, "")
		if got.Status != http.StatusOK || got.Header.Get("Content-Type") != "application/x-ndjson" {
			s.T.Fatalf("GET changes?%s with %s: %d %s", q, key, got.Status, got.Body)
		}
		n := 0
		for _, line := range strings.Split(strings.TrimSuffix(got.Body, "\n"), "\n") {
			if line == "" {
				continue
			}
			var c store.Change
			if err := json.Unmarshal([]byte(line), &c); err != nil {
				s.T.Fatalf("GET changes: %q: %v", line, err)
			}
			all, n = append(all, c), n+1
		}
		m := changesLink.FindStringSubmatch(got.Header.Get("Link"))
		if (m != nil) != (n == limit) {
			s.T.Errorf("GET changes?%s: %d records of %d, Link %q: a Link comes with a full page only", q, n, limit, got.Header.Get("Link"))
		}
		if m == nil {
			return all
		}
		v, _ := url.ParseQuery(query)
		v.Set("since", m[1])
		v.Set("limit", fmt.Sprint(limit))
		q = v.Encode()
	}
}

// seqsOf returns the sequence numbers of cs.
func seqsOf(cs []store.Change) []uint64 {
	var out []uint64
	for _, c := range cs {
		out = append(out, c.Seq)
	}
	return out
}

func checkChanges(t *testing.T, s *caddytest.APISite) {
	for _, c := range []struct{ method, path, body string }{
		{"PUT", "/id/ark:12345/x5c1", `{"target": "https://old.example.org/c1", "meta": {"who": "Ada"}}`},
		{"PUT", "/id/ark:12345/c2", `{"target": "https://old.example.org/c2"}`},
		{"PUT", "/id/urn:isbn:9780000000002", `{"target": "https://old.example.org/isbn2"}`},
		{"PATCH", "/id/ark:12345/x5c1", `{"meta": {"who": "Grace"}}`},
		{"POST", "/withdraw/ark:12345/c2", `{"reason": "duplicate"}`},
		{"POST", "/mint/ark:12345/x8", ""},
	} {
		if got := s.Call(c.method, c.path, "editor", c.body); got.Status >= 300 {
			t.Fatalf("%s %s: %d %s", c.method, c.path, got.Status, got.Body)
		}
	}
	var res api.RetargetResult
	if got := apiRetarget(s, "editor", api.RetargetRequest{From: "https://old.example.org/", To: "https://new.example.org/"}, &res); got.Status != http.StatusOK || res.Count != 2 {
		t.Fatalf("retarget: %d %s", got.Status, got.Body)
	}

	// Every record of GET id/<id>, in sequence order.
	var want []store.Change
	for _, id := range []string{"ark:12345/x5c1", "ark:12345/c2", "urn:isbn:9780000000002", "ark:12345/x800"} {
		want = append(want, s.Lookup(id).History...)
	}
	slices.SortFunc(want, func(a, b store.Change) int { return int(a.Seq) - int(b.Seq) })
	if len(want) != 8 {
		t.Fatalf("the fixture's history holds %d records, want 8", len(want))
	}
	keep := func(ok func(c store.Change) bool) []uint64 {
		var out []uint64
		for _, c := range want {
			if ok(c) {
				out = append(out, c.Seq)
			}
		}
		return out
	}
	all := func(store.Change) bool { return true }
	ark := func(c store.Change) bool { return strings.HasPrefix(c.Key, "ark:") }
	for _, limit := range []int{1, 2, 1000} {
		for _, tt := range []struct {
			query, key string
			want       []uint64
		}{
			{"since=0", "editor", keep(all)},
			{"", "editor", keep(all)}, // the last 24 hours
			{"since=" + fmt.Sprint(want[3].Seq), "editor", seqsOf(want[4:])},
			{"since=" + url.QueryEscape(want[5].Time.Format(time.RFC3339Nano)), "editor", seqsOf(want[5:])},
			{"since=" + url.QueryEscape(time.Now().Add(time.Hour).Format(time.RFC3339)), "editor", nil},
			{"since=0&prefix=urn:isbn", "editor", keep(func(c store.Change) bool { return !ark(c) })},
			{"since=0", "reader", keep(ark)},
			{"since=0", "x5", keep(func(c store.Change) bool { return strings.HasPrefix(c.Key, "ark:12345/x5") })},
		} {
			if got := seqsOf(apiChanges(s, tt.query, tt.key, limit)); !slices.Equal(got, tt.want) {
				t.Errorf("GET changes?%s&limit=%d with %s: %v, want %v", tt.query, limit, tt.key, got, tt.want)
			}
		}
	}
	// Each record as the history of GET id/<id> shows it.
	for i, c := range apiChanges(s, "since=0", "editor", 1000) {
		if !jsonEqual(c, want[i]) {
			t.Errorf("GET changes record %d: %+v\nGET id/%s history: %+v", i, c, c.Key, want[i])
		}
	}
	last := want[len(want)-1]
	if last.By != "editor" || last.Batch != res.Batch || last.Old.Target != "https://old.example.org/isbn2" || last.New.Target != "https://new.example.org/isbn2" {
		t.Errorf("the last change: %+v; want the retarget of the ISBN by editor in batch %d", last, res.Batch)
	}
	for _, tt := range []struct {
		query, reason string
	}{
		{"since=yesterday", "since"},
		{"since=-3", "since"},
		{"limit=0", "limit"},
		{"prefix=doi:1", "prefix"},
	} {
		if got := s.Call("GET", "/changes?"+tt.query, "editor", ""); got.Status != http.StatusBadRequest || !strings.Contains(got.Body, tt.reason) {
			t.Errorf("GET changes?%s: %d %s; want 400 saying %q", tt.query, got.Status, got.Body, tt.reason)
		}
	}
}

func TestAPIChanges(t *testing.T) {
	checkChanges(t, caddytest.StartAPISite(t, "minter ark:12345/x8 .sdd"))
}

func TestPostgresAPIChanges(t *testing.T) {
	checkChanges(t, startPGAPISite(t, "minter ark:12345/x8 .sdd"))
}

// A key that may read little of a long history gets short pages, each
// read in bounded time, with Links until the end.
func TestAPIChangesScanLimit(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	var entries []string
	for i := range 25000 {
		entries = append(entries, fmt.Sprintf(`{"id": "urn:isbn:97800%08d", "target": "https://books.example.org/%d"}`, i, i))
	}
	if got := s.Call("POST", "/import", "editor", `{"entries": [`+strings.Join(entries, ",\n")+`]}`); got.Status != http.StatusOK {
		t.Fatalf("import: %d %s", got.Status, got.Body)
	}
	if got := s.Call("PUT", "/id/ark:12345/late", "editor", `{"target": "https://repo.example.org/late"}`); got.Status != http.StatusCreated {
		t.Fatal(got.Body)
	}
	// bbolt records an import's history as it merges it, in the
	// background: wait for the last record.
	testkit.WaitFor(t, "the import's history", func() bool {
		return strings.Count(s.Call("GET", "/changes?since=25000", "editor", "").Body, "\n") == 1
	})
	pages := 0
	var seen []string
	q := "since=0"
	for {
		got := s.Call("GET", "/changes?"+q, "reader", "")
		if got.Status != http.StatusOK {
			t.Fatalf("GET changes?%s: %d %s", q, got.Status, got.Body)
		}
		pages++
		for _, line := range strings.Split(strings.TrimSpace(got.Body), "\n") {
			if line != "" {
				var c store.Change
				if err := json.Unmarshal([]byte(line), &c); err != nil {
					t.Fatal(err)
				}
				seen = append(seen, c.Key)
			}
		}
		m := changesLink.FindStringSubmatch(got.Header.Get("Link"))
		if m == nil {
			break
		}
		q = "since=" + m[1]
	}
	if !slices.Equal(seen, []string{"ark:12345/late"}) || pages != 3 {
		t.Errorf("reader over 25,000 changes it may not read and one it may: %v in %d pages; want the one, in 3 pages of at most 10,000 records read", seen, pages)
	}
}
