package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// idsFixture binds, withdraws and mints through the API of s the
// identifiers that the ids tests list, and returns them sorted: 24 under
// ark:12345/x5 (every third on old.example.org, every fourth with a
// "who" of Ada Lovelace, two withdrawn), 5 under ark:12345/b, 3 URNs, and
// 3 names minted under ark:12345/x8 (minted ".sdd").
func idsFixture(t *testing.T, s *caddytest.APISite) []string {
	t.Helper()
	var lines []string
	var ids []string
	add := func(id, target string, meta map[string]string) {
		line := map[string]any{"op": "bind", "id": id, "target": target}
		if meta != nil {
			line["meta"] = meta
		}
		data, _ := json.Marshal(line)
		lines = append(lines, string(data))
		ids = append(ids, id)
	}
	for i := range 24 {
		host := "new.example.org"
		if i%3 == 0 {
			host = "old.example.org"
		}
		var meta map[string]string
		if i%4 == 0 {
			meta = map[string]string{"who": "Ada Lovelace", "what": fmt.Sprint("letter ", i)}
		}
		add(fmt.Sprintf("ark:12345/x5k%02d", i), "https://"+host+"/k"+fmt.Sprint(i), meta)
	}
	for i := range 5 {
		add(fmt.Sprintf("ark:12345/b%d", i), fmt.Sprintf("/objects/b%d.html", i), nil)
	}
	for i := range 3 {
		add(fmt.Sprintf("urn:isbn:978000000000%d", i), "https://books.example.org/"+fmt.Sprint(i), nil)
	}
	lines = append(lines, `{"op": "withdraw", "id": "ark:12345/x5k05", "reason": "duplicate"}`, `{"op": "withdraw", "id": "ark:12345/x5k06", "reason": "duplicate"}`)
	for _, r := range caddytest.BulkResults(t, s.Call("POST", "/bulk", "editor", strings.Join(lines, "\n"))) {
		if r.Status >= 300 {
			t.Fatalf("bulk line %d: %d %s", r.Line, r.Status, r.Error)
		}
	}
	got := s.Call("POST", "/mint/ark:12345/x8?n=3", "editor", "")
	var minted struct{ IDs []string }
	if err := json.Unmarshal([]byte(got.Body), &minted); err != nil || got.Status != http.StatusCreated || len(minted.IDs) != 3 {
		t.Fatalf("mint: %d %s", got.Status, got.Body)
	}
	ids = append(ids, minted.IDs...)
	sort.Strings(ids)
	return ids
}

// idsPage is one answer of GET ids: its lines' bindings, decoded as
// objects, and the after of its Link to the next page ("" for none).
type idsPage struct {
	lines []map[string]any
	next  string
}

// keys returns the ids of the page's lines.
func (p idsPage) keys() []string {
	var out []string
	for _, l := range p.lines {
		out = append(out, l["id"].(string))
	}
	return out
}

// linkNext reads the after of a Link: <...>; rel="next".
var linkNext = regexp.MustCompile(`^<(/api/ark/ids\?[^>]*)>; rel="next"$`)

// apiIDs gets GET ids?query with key, failing t unless it answers 200 with
// NDJSON.
func apiIDs(s *caddytest.APISite, query, key string) idsPage {
	s.T.Helper()
	got := s.Call("GET", "/ids?"+query, key, "")
	if got.Status != http.StatusOK || got.Header.Get("Content-Type") != "application/x-ndjson" {
		s.T.Fatalf("GET ids?%s with %s: %d %s %s", query, key, got.Status, got.Header.Get("Content-Type"), got.Body)
	}
	var p idsPage
	for _, line := range strings.Split(strings.TrimSuffix(got.Body, "\n"), "\n") {
		if line == "" {
			continue
		}
		var b map[string]any
		if err := json.Unmarshal([]byte(line), &b); err != nil {
			s.T.Fatalf("GET ids?%s: line %q: %v", query, line, err)
		}
		p.lines = append(p.lines, b)
	}
	if link := got.Header.Get("Link"); link != "" {
		m := linkNext.FindStringSubmatch(link)
		if m == nil {
			s.T.Fatalf("GET ids?%s: Link %q", query, link)
		}
		u, err := url.Parse(m[1])
		if err != nil {
			s.T.Fatal(err)
		}
		p.next = u.Query().Get("after")
		asked, _ := url.ParseQuery(query)
		asked.Set("after", p.next)
		if u.RawQuery != asked.Encode() {
			s.T.Errorf("GET ids?%s: Link %q, want this query with after=%s", query, link, p.next)
		}
	}
	return p
}

// apiAllIDs follows the Links of GET ids?query from the first page to the
// last and returns every id, checking that each page is sorted after the
// one before and that only full pages have a Link.
func apiAllIDs(s *caddytest.APISite, query, key string, limit int) []string {
	s.T.Helper()
	var all []string
	after := ""
	for pages := 0; ; pages++ {
		if pages > 100 {
			s.T.Fatal("more than 100 pages")
		}
		q := query + "&limit=" + fmt.Sprint(limit)
		if after != "" {
			q += "&after=" + url.QueryEscape(after)
		}
		p := apiIDs(s, q, key)
		if (p.next != "") != (len(p.lines) == limit) {
			s.T.Errorf("GET ids?%s: %d lines of %d, next %q: a Link comes with a full page only", q, len(p.lines), limit, p.next)
		}
		all = append(all, p.keys()...)
		if p.next == "" {
			break
		}
		if p.next != all[len(all)-1] {
			s.T.Errorf("next page after %q, the page ended at %q", p.next, all[len(all)-1])
		}
		after = p.next
	}
	if !sort.StringsAreSorted(all) || len(slices.Compact(slices.Clone(all))) != len(all) {
		s.T.Errorf("GET ids?%s: not in identifier order, or repeated: %v", query, all)
	}
	return all
}

// checkIDs checks GET ids on a site that holds idsFixture's identifiers.
func checkIDs(t *testing.T, s *caddytest.APISite, ids []string) {
	filter := func(keep func(id string) bool) []string {
		var out []string
		for _, id := range ids {
			if keep(id) {
				out = append(out, id)
			}
		}
		return out
	}
	number := func(id string) int {
		var n int
		fmt.Sscanf(strings.TrimPrefix(id, "ark:12345/x5k"), "%d", &n)
		return n
	}
	x5 := func(id string) bool { return strings.HasPrefix(id, "ark:12345/x5") }
	withdrawn := func(id string) bool { return id == "ark:12345/x5k05" || id == "ark:12345/x5k06" }
	minted := func(id string) bool { return strings.HasPrefix(id, "ark:12345/x8") }
	for _, tt := range []struct {
		query, key string
		want       []string
	}{
		{"", "editor", ids},
		{"prefix=ark:/12345/x5", "editor", filter(x5)},
		{"prefix=ark:12345", "editor", filter(func(id string) bool { return strings.HasPrefix(id, "ark:") })},
		{"prefix=URN:ISBN", "editor", filter(func(id string) bool { return strings.HasPrefix(id, "urn:") })},
		{"status=withdrawn", "editor", filter(withdrawn)},
		{"status=minted", "editor", filter(minted)},
		{"status=bound", "editor", filter(func(id string) bool { return !withdrawn(id) && !minted(id) })},
		{"q=OLD.example", "editor", filter(func(id string) bool { return x5(id) && number(id)%3 == 0 })},
		{"q=lovelace&status=bound", "editor", filter(func(id string) bool { return x5(id) && number(id)%4 == 0 })},
		{"q=lovelace&prefix=ark:12345/x5k1", "editor", filter(func(id string) bool {
			return strings.HasPrefix(id, "ark:12345/x5k1") && number(id)%4 == 0
		})},
		{"q=nowhere", "editor", nil},
		// Out of scope is left out without a word.
		{"", "reader", filter(func(id string) bool { return strings.HasPrefix(id, "ark:") })},
		{"", "x5", filter(x5)},
		{"prefix=ark:12345/b", "x5", nil},
		{"prefix=urn:isbn", "reader", nil},
	} {
		for _, limit := range []int{1, 7, 1000} {
			if got := apiAllIDs(s, tt.query, tt.key, limit); !slices.Equal(got, tt.want) {
				t.Errorf("GET ids?%s&limit=%d with %s:\n got %v\nwant %v", tt.query, limit, tt.key, got, tt.want)
			}
		}
	}

	// Each line is the binding as GET id/<id> gives it.
	for _, line := range apiIDs(s, "limit=1000", "editor").lines {
		id := line["id"].(string)
		var rec map[string]any
		if err := json.Unmarshal([]byte(s.Call("GET", "/id/"+id, "editor", "").Body), &rec); err != nil {
			t.Fatal(err)
		}
		if !jsonEqual(rec["binding"], line) {
			t.Errorf("GET ids line %v\nGET id/%s binding %v", line, id, rec["binding"])
		}
	}

	for _, tt := range []struct {
		query  string
		status int
		reason string
	}{
		{"status=gone", http.StatusBadRequest, "bound, withdrawn or minted"},
		{"limit=0", http.StatusBadRequest, "limit"},
		{"limit=1001", http.StatusBadRequest, "from 1 to 1000"},
		{"limit=ten", http.StatusBadRequest, "limit"},
		{"prefix=doi:10.1000", http.StatusBadRequest, "prefix"},
		{"q=" + url.QueryEscape("a\nb"), http.StatusBadRequest, "control character"},
	} {
		if got := s.Call("GET", "/ids?"+tt.query, "editor", ""); got.Status != tt.status || !strings.Contains(got.Body, tt.reason) {
			t.Errorf("GET ids?%s: %d %s; want %d saying %q", tt.query, got.Status, got.Body, tt.status, tt.reason)
		}
	}
	if got := s.Call("GET", "/ids", "", ""); got.Status != http.StatusUnauthorized {
		t.Errorf("GET ids without a key: %d", got.Status)
	}
	if got := s.Call("POST", "/ids", "editor", ""); got.Status != http.StatusMethodNotAllowed || got.Header.Get("Allow") != "GET" {
		t.Errorf("POST ids: %d Allow %q", got.Status, got.Header.Get("Allow"))
	}
}

// jsonEqual reports whether a and b encode the same.
func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func TestAPIIDs(t *testing.T) {
	s := caddytest.StartAPISite(t, "minter ark:12345/x8 .sdd")
	checkIDs(t, s, idsFixture(t, s))
}

// GET ids lists only identifiers that GET id/<id> answers for: a binding
// under a NAAN the site no longer has is left out.
func TestAPIIDsOnlyWhatTheStoreAnswersFor(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	withOther := func(body string) string {
		return strings.Replace(body, "write:ark:12345 ", "write:ark:12345 write:ark:23456 ", 1)
	}
	if err := s.Load(withOther(strings.Replace(caddytest.APISiteBody(s.DB, s.Table, ""), "naan 12345", "naan 12345 23456", 1))); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"ark:23456/z", "ark:12345/t3"} {
		if got := s.Call("PUT", "/id/"+id, "editor", `{"target": "https://repo.example.org/x"}`); got.Status != http.StatusCreated {
			t.Fatalf("PUT id/%s: %d %s", id, got.Status, got.Body)
		}
	}
	if got := apiAllIDs(s, "", "editor", 10); !slices.Equal(got, []string{"ark:12345/t3", "ark:23456/z"}) {
		t.Fatalf("before: %v", got)
	}
	if err := s.Load(withOther(caddytest.APISiteBody(s.DB, s.Table, ""))); err != nil {
		t.Fatal(err)
	}
	if got := apiAllIDs(s, "", "editor", 10); !slices.Equal(got, []string{"ark:12345/t3"}) {
		t.Errorf("after NAAN 23456 left the site: %v, want only t3", got)
	}
	if got := s.Call("GET", "/id/ark:23456/z", "editor", ""); got.Status != http.StatusBadRequest {
		t.Errorf("GET id/ark:23456/z after NAAN 23456 left the site: %d, want 400 as GET ids leaves it out", got.Status)
	}
}

// TestPostgresAPIIDs is TestAPIIDs on a PostgreSQL store.
func TestPostgresAPIIDs(t *testing.T) {
	s := startPGAPISite(t, "minter ark:12345/x8 .sdd")
	checkIDs(t, s, idsFixture(t, s))
}

// startPGAPISite starts an APISite whose store is a new database of the
// shared PostgreSQL cluster; more goes inside the ark block.
func startPGAPISite(t *testing.T, more string) *caddytest.APISite {
	t.Helper()
	dsn := testkit.SharedPostgres(t).CreateDB(t)
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	body := strings.Replace(caddytest.APISiteBody("BOLT", tablePath, more), "store bolt BOLT", "store postgres "+dsn, 1)
	return &caddytest.APISite{Site: caddytest.StartSite(t, body), Table: tablePath}
}
