package console

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/bolt"
)

func TestConsoleFrontPageShowsTheStatistics(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui", "stats")
	s.Call("PUT", "/id/ark:12345/x5one", "editor", `{"target": "https://old.example.org/one"}`)
	s.Call("PUT", "/id/urn:isbn:978-3-16-148410-0", "editor", `{"target": "https://books.example.org/1"}`)
	for range 3 {
		s.Get("/ark:12345/x5one")
	}
	for range 2 {
		s.Get("/ark:12345/x5goneastray")
	}
	s.Get("/urn:isbn:978-3-16-148410-0")

	home := s.SignIn("editor").Get("")
	for _, want := range []string{
		"<svg", "Requests per day",
		"6 requests, of which 2 found nothing",
		`<a href="/api/ark/ui/id/ark:12345/x5one">ark:12345/x5one</a>: 3`,
		"<code>ark:12345/x5goneastray</code>: 2",
		"<code>urn:isbn</code>",
	} {
		if !strings.Contains(home.Body, want) {
			t.Errorf("the editor's front page has no %q", want)
		}
	}
	// The chart is drawn on the server: one bar (two rectangles) a day.
	if bars := strings.Count(home.Body, "<rect x="); bars != 2*30 {
		t.Errorf("%d bars' rectangles, want 2 for each of 30 days", bars)
	}

	// x5 sees what its scope covers only: no URN, no request that names
	// no shoulder of its.
	x5 := s.SignIn("x5").Get("")
	if !strings.Contains(x5.Body, "ark:12345/x5one") || strings.Contains(x5.Body, "urn:isbn") {
		t.Errorf("x5's front page: %s", x5.Body)
	}
}

func TestConsoleFrontPageWithoutStatistics(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	home := s.SignIn("editor").Get("")
	if home.Status != http.StatusOK || strings.Contains(home.Body, "<svg") || !strings.Contains(home.Body, "keeps no statistics") {
		t.Errorf("front page without stats: %d %s", home.Status, home.Body)
	}
}

// seedStatistics adds made-up counts for the 30 days before today to the
// store of s, through the process's shared handle, so that the front
// page's chart has a month to draw.
func seedStatistics(t *testing.T, s *caddytest.ConsoleSite) {
	t.Helper()
	st := testkit.Provision(t, &bolt.Store{Path: s.DB})
	var add store.Stats
	today := time.Now().UTC()
	for i := 1; i < 30; i++ {
		day := today.AddDate(0, 0, -i).Format("2006-01-02")
		weekday := today.AddDate(0, 0, -i).Weekday()
		busy := uint64(40 + 7*(i%5))
		if weekday == time.Saturday || weekday == time.Sunday {
			busy /= 3
		}
		add.Resolutions = append(add.Resolutions,
			store.ResolutionCount{Day: day, Shoulder: "ark:12345/x5", Outcome: "redirect", Count: busy},
			store.ResolutionCount{Day: day, Shoulder: "ark:12345", Outcome: "not_found", Count: busy / 6})
		add.Top = append(add.Top, store.NameCount{Day: day, ID: "ark:12345/x5one", Count: busy / 2})
		add.NotFound = append(add.NotFound, store.NameCount{Day: day, ID: "ark:12345/x5lost", Count: busy / 6})
	}
	if err := st.AddStats(context.Background(), &add, store.StatsKeep{Top: 10, NotFound: 10}); err != nil {
		t.Fatal(err)
	}
}
