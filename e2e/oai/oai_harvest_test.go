package oai

import (
	"maps"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddyserver/caddy/v2"
)

// TestOAIHarvestBolt harvests a site with a table and a bbolt store with
// a real harvester, then incrementally after writes, a withdrawal and a
// restart, and a list interrupted by writes and a restart.
func TestOAIHarvestBolt(t *testing.T) {
	needHarvester(t)
	db := filepath.Join(t.TempDir(), "ark.db")
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	body := caddytest.APISiteBody(db, tablePath, oaiBlock+"\n\t\tminter ark:12345/m7 .sdddd")
	s := &caddytest.APISite{Site: caddytest.StartSite(t, body), DB: db, Table: tablePath}
	testOAIHarvest(t, s, body)
}

// TestOAIHarvestPostgres is TestOAIHarvestBolt on PostgreSQL.
func TestOAIHarvestPostgres(t *testing.T) {
	needHarvester(t)
	c := testkit.StartPostgres(t)
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	body := strings.Replace(caddytest.APISiteBody("BOLT", tablePath, oaiBlock+"\n\t\tminter ark:12345/m7 .sdddd"), "store bolt BOLT", "store postgres "+c.CreateDB(t), 1)
	s := &caddytest.APISite{Site: caddytest.StartSite(t, body), Table: tablePath}
	testOAIHarvest(t, s, body)
}

func testOAIHarvest(t *testing.T, s *caddytest.APISite, body string) {
	put := func(id, what string) {
		t.Helper()
		got := s.Call("PUT", "/id/"+id, "editor", `{"target": "https://repo.example.org/`+url.PathEscape(id)+`", "meta": {"what": "`+what+`"}}`)
		if got.Status != http.StatusCreated && got.Status != http.StatusOK {
			t.Fatalf("PUT %s: %d %s", id, got.Status, got.Body)
		}
	}
	first := []string{"ark:12345/x5a", "ark:12345/x5b", "ark:12345/x5c", "ark:12345/b6d", "ark:12345/b6e", "urn:isbn:978-3-16-148410-0", "ark:12345/x5f"}
	for _, id := range first {
		put(id, "Title of "+id)
	}
	if got := s.Call("POST", "/mint/ark:12345/m7", "editor", ""); got.Status != http.StatusCreated {
		t.Fatalf("mint: %d %s", got.Status, got.Body) // a minted name, not bound: no record
	}
	testkit.NextSecond()

	// A full harvest: every identifier of the table and the store, once.
	all, r1 := harvest(t, s.Site, "ListRecords", "", "")
	got := byID(t, "full harvest", all)
	want := append(slices.Clone(first), "ark:12345/t1")
	if ids := slices.Sorted(maps.Keys(got)); !slices.Equal(ids, slices.Sorted(slices.Values(want))) {
		t.Errorf("full harvest: %v, want %v", ids, slices.Sorted(slices.Values(want)))
	}
	for _, r := range all {
		if r.deleted {
			t.Errorf("full harvest: %s deleted", r.id)
		}
	}

	// One shoulder's set.
	x5, _ := harvest(t, s.Site, "ListIdentifiers", "", "ark:12345:x5")
	if ids := slices.Sorted(maps.Keys(byID(t, "set ark:12345:x5", x5))); !slices.Equal(ids, []string{"ark:12345/x5a", "ark:12345/x5b", "ark:12345/x5c", "ark:12345/x5f"}) {
		t.Errorf("set ark:12345:x5: %v", ids)
	}

	// Changes: x5a twice, x5b withdrawn, x5g new. An incremental harvest
	// from the first one's responseDate finds each identifier once, at
	// its latest change, and nothing else.
	put("ark:12345/x5a", "Second title")
	put("ark:12345/x5a", "Third title")
	if got := s.Call("POST", "/withdraw/ark:12345/x5b", "editor", `{"reason": "Duplicate"}`); got.Status != http.StatusOK {
		t.Fatalf("withdraw: %d %s", got.Status, got.Body)
	}
	put("ark:12345/x5g", "New")
	testkit.NextSecond()
	inc, r2 := harvest(t, s.Site, "ListRecords", r1, "")
	incs := byID(t, "incremental harvest", inc)
	if ids := slices.Sorted(maps.Keys(incs)); !slices.Equal(ids, []string{"ark:12345/x5a", "ark:12345/x5b", "ark:12345/x5g"}) {
		t.Errorf("incremental harvest from %s: %v, want x5a, x5b, x5g", r1, ids)
	}
	if !incs["ark:12345/x5b"].deleted || incs["ark:12345/x5a"].deleted || incs["ark:12345/x5g"].deleted {
		t.Errorf("incremental harvest: %+v: x5b alone is deleted", inc)
	}

	// A list taken a page at a time, with writes and a restart between
	// its pages: its token goes on after the restart; what changed after
	// the list began is not in it (it is in the next harvest), the rest
	// is, once.
	page := oaiGet(s.Site, "verb=ListIdentifiers&metadataPrefix=oai_dc")
	d := decodeOAI(t, page)
	if d.Token == nil || d.Token.Cursor != "0" || d.Token.CompleteListSize != "" || d.Token.ExpirationDate == "" || len(d.Headers) != 3 {
		t.Fatalf("first page: %d headers, token %+v; want 3 and a token with cursor 0, an expirationDate and no completeListSize (not counted)", len(d.Headers), d.Token)
	}
	listed := map[string]bool{}
	for _, h := range d.Headers {
		listed[h.Identifier] = true
	}
	changed := "ark:12345/x5f"
	if listed[changed] {
		t.Fatalf("%s is on the first page: the test expects it later", changed)
	}
	put(changed, "Changed during the list")
	put("ark:12345/x5h", "New during the list")
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Load(body); err != nil {
		t.Fatalf("restart: %v", err)
	}
	for token, n := d.Token.Value, 3; token != ""; {
		d = decodeOAI(t, oaiGet(s.Site, "verb=ListIdentifiers&resumptionToken="+url.QueryEscape(token)))
		if d.Token == nil || d.Token.Cursor != strconv.Itoa(n) || d.Token.CompleteListSize != "" {
			t.Fatalf("page at %d: token %+v", n, d.Token)
		}
		for _, h := range d.Headers {
			if listed[h.Identifier] {
				t.Errorf("list with a restart: %s twice", h.Identifier)
			}
			listed[h.Identifier] = true
		}
		token, n = d.Token.Value, n+len(d.Headers)
	}
	wantListed := []string{"ark:12345/b6d", "ark:12345/b6e", "ark:12345/t1", "ark:12345/x5a", "ark:12345/x5b", "ark:12345/x5c", "ark:12345/x5g", "urn:isbn:978-3-16-148410-0"}
	if ids := slices.Sorted(maps.Keys(listed)); !slices.Equal(ids, wantListed) {
		t.Errorf("list with writes and a restart: %v, want %v", ids, wantListed)
	}

	testkit.NextSecond()
	inc2, _ := harvest(t, s.Site, "ListIdentifiers", r2, "")
	if ids := slices.Sorted(maps.Keys(byID(t, "harvest after the restart", inc2))); !slices.Equal(ids, []string{"ark:12345/x5f", "ark:12345/x5h"}) {
		t.Errorf("harvest from %s after the restart: %v, want x5f, x5h", r2, ids)
	}
}

// TestOAIPostgresUnavailable: with PostgreSQL stopped, what needs the
// store is a 503 with Retry-After, which harvesters retry, never an empty
// list that would make them think nothing changed.
func TestOAIPostgresUnavailable(t *testing.T) {
	c := testkit.StartPostgres(t)
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	body := strings.Replace(caddytest.APISiteBody("BOLT", tablePath, oaiBlock), "store bolt BOLT", "store postgres "+c.CreateDB(t), 1)
	s := &caddytest.APISite{Site: caddytest.StartSite(t, body), Table: tablePath}
	if got := s.Call("PUT", "/id/ark:12345/x5a", "editor", `{"target": "https://repo.example.org/a"}`); got.Status != http.StatusCreated {
		t.Fatalf("PUT: %d %s", got.Status, got.Body)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"verb=Identify", "verb=ListIdentifiers&metadataPrefix=oai_dc", "verb=GetRecord&metadataPrefix=oai_dc&identifier=ark:12345/x5a", "verb=ListSets"} {
		got := s.Get("/oai?" + q)
		if got.Status != http.StatusServiceUnavailable || got.Header.Get("Retry-After") == "" || !strings.Contains(got.Body, "unavailable") {
			t.Errorf("%s with PostgreSQL stopped: %d Retry-After %q %s", q, got.Status, got.Header.Get("Retry-After"), got.Body)
		}
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the provider to answer again", func() bool {
		return s.Get("/oai?verb=GetRecord&metadataPrefix=oai_dc&identifier=ark:12345/x5a").Status == http.StatusOK
	})
}
