package oai

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// TestOAIListsBeyondTheBoundAre503: with concurrent_lists 1, while one
// list is being read (held up by a lock on the PostgreSQL store's
// history), another list, and a ListSets that would read every record,
// are answered 503 with Retry-After at once, as harvesters understand;
// resolution and GetRecord, which read no list, are answered as usual.
// Once the first list is read, the others are answered.
func TestOAIListsBeyondTheBoundAre503(t *testing.T) {
	testkit.NeedTool(t, "xmllint", "libxml2-utils")
	c := testkit.StartPostgres(t)
	dsn := c.CreateDB(t)
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	body := strings.Replace(caddytest.APISiteBody("BOLT", tablePath, strings.Replace(oaiBlock, "page_size 3", "page_size 3\n\t\t\tconcurrent_lists 1", 1)),
		"store bolt BOLT", "store postgres {\n\t\t\tdsn "+dsn+"\n\t\t\ttimeout 60s\n\t\t\tmax_conns 8\n\t\t}", 1)
	s := &caddytest.APISite{Site: caddytest.StartSite(t, body), Table: tablePath}
	for _, id := range []string{"ark:12345/x5a", "ark:12345/x5b", "urn:isbn:978-3-16-148410-0"} {
		if got := s.Call("PUT", "/id/"+id, "editor", `{"target": "https://repo.example.org/`+id+`"}`); got.Status != http.StatusCreated {
			t.Fatalf("PUT %s: %d %s", id, got.Status, got.Body)
		}
	}
	testkit.NextSecond()

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE ark.history IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	first := make(chan caddytest.Answer, 1)
	go func() { first <- s.Get("/oai?verb=ListIdentifiers&metadataPrefix=oai_dc") }()
	testkit.WaitFor(t, "the first list to wait for the history's lock", func() bool {
		var waiting int
		err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name = 'caddy-ark'").Scan(&waiting)
		return err == nil && waiting > 0
	})

	for _, q := range []string{"verb=ListIdentifiers&metadataPrefix=oai_dc&set=ark", "verb=ListRecords&metadataPrefix=oai_datacite", "verb=ListSets"} {
		got := s.Get("/oai?" + q)
		if got.Status != http.StatusServiceUnavailable || got.Header.Get("Retry-After") == "" || !strings.Contains(got.Body, "retry after") {
			t.Errorf("%s while a list is read: %d Retry-After %q %s; want 503 with Retry-After", q, got.Status, got.Header.Get("Retry-After"), got.Body)
		}
	}
	if got := s.Get("/ark:12345/x5a"); got.Status != http.StatusFound {
		t.Errorf("resolution while a list is read: %d %s", got.Status, got.Body)
	}
	if d := decodeOAI(t, oaiGet(s.Site, "verb=GetRecord&metadataPrefix=oai_dc&identifier=ark:12345/x5a")); d.Record == nil {
		t.Errorf("GetRecord while a list is read: %+v", d.Errors)
	}

	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	got := <-first
	validOAI(s.Site, "the first list", got)
	if d := decodeOAI(t, got); len(d.Headers) != 3 || d.Token == nil {
		t.Errorf("the first list, once the lock is gone: %d headers, token %+v", len(d.Headers), d.Token)
	}
	d := decodeOAI(t, oaiGet(s.Site, "verb=ListSets"))
	var sets []string
	for _, set := range d.Sets {
		sets = append(sets, set.Spec)
	}
	slices.Sort(sets)
	if want := []string{"ark", "ark:12345", "ark:12345:t1", "ark:12345:x5", "urn", "urn:isbn"}; !slices.Equal(sets, want) {
		t.Errorf("ListSets once the lock is gone: %v, want %v", sets, want)
	}
}

// TestOAIListSetsFollowsWrites: ListSets names the sets of every record
// of the table and the store, and of those written since the last
// ListSets (new shoulders); a minted name not bound is
// in none, a withdrawn identifier stays in its own. A list of a set no
// record is in is a noRecordsMatch until a record is written in it.
func TestOAIListSetsFollowsWrites(t *testing.T) {
	s := startOAISite(t)
	sets := func() []string {
		t.Helper()
		var out []string
		for _, set := range decodeOAI(t, oaiGet(s.Site, "verb=ListSets")).Sets {
			out = append(out, set.Spec+"="+set.Name)
		}
		slices.Sort(out)
		return out
	}
	before := []string{"ark:12345:t1=ark:12345/t1", "ark:12345:x5=ark:12345/x5", "ark:12345=ark:12345", "ark=ark", "urn:isbn=urn:isbn", "urn=urn"}
	if got := sets(); !slices.Equal(got, before) {
		t.Errorf("ListSets: %v, want %v", got, before)
	}
	unused := "verb=ListIdentifiers&metadataPrefix=oai_dc&set=ark:12345:b7"
	if d := decodeOAI(t, oaiGet(s.Site, unused)); len(d.Errors) != 1 || d.Errors[0].Code != "noRecordsMatch" {
		t.Errorf("a set no record is in: %+v", d.Errors)
	}

	for _, id := range []string{"ark:12345/b7x", "ark:12345/c8y"} {
		if got := s.Call("PUT", "/id/"+id, "editor", `{"target": "https://repo.example.org/new"}`); got.Status != http.StatusCreated {
			t.Fatalf("PUT %s: %d %s", id, got.Status, got.Body)
		}
	}
	if got := s.Call("POST", "/withdraw/ark:12345/b7x", "editor", `{"reason": "Duplicate"}`); got.Status != http.StatusOK {
		t.Fatalf("withdraw: %d %s", got.Status, got.Body)
	}
	if got := s.Call("POST", "/mint/ark:12345/m7", "editor", ""); got.Status != http.StatusCreated {
		t.Fatalf("mint: %d %s", got.Status, got.Body)
	}
	testkit.NextSecond()
	after := append(slices.Clone(before), "ark:12345:b7=ark:12345/b7", "ark:12345:c8=ark:12345/c8")
	slices.Sort(after)
	if got := sets(); !slices.Equal(got, after) {
		t.Errorf("ListSets after writes: %v, want %v", got, after)
	}
	if d := decodeOAI(t, oaiGet(s.Site, unused)); len(d.Headers) != 1 || d.Headers[0].Identifier != "ark:12345/b7x" || d.Headers[0].Status != "deleted" {
		t.Errorf("the set once a record is in it: %+v %+v", d.Headers, d.Errors)
	}
}
