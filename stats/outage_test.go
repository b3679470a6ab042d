package stats

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/postgres"
	"github.com/caddyserver/caddy/v2"
)

// While the store is down, the counts are kept and reports fail; once it
// is back, the next flush writes them all, once.
func TestStoreOutageKeepsCounts(t *testing.T) {
	pg := testkit.StartPostgres(t)
	dsn := pg.CreateDB(t)
	s := newSite(t)
	st := testkit.Provision(t, &postgres.Store{DSN: dsn, Timeout: caddy.Duration(time.Second)})
	c := s.collector(t, Config{}, Options{Store: st, flushInterval: time.Hour})
	ctx := context.Background()
	s.observe(c, "ark:12345/x5a", "ark:12345/nothere")
	if err := c.flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := pg.Stop(); err != nil {
		t.Fatal(err)
	}
	s.observe(c, "ark:12345/x5a")
	if err := c.flush(ctx); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("flush with the store down: %v, want ErrUnavailable", err)
	}
	if _, err := c.Report(ctx, Query{From: today(), To: today()}); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("report with the store down: %v, want ErrUnavailable", err)
	}
	s.observe(c, "ark:12345/x5a")
	if err := pg.Start(); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the flush after the outage", func() bool { return c.flush(ctx) == nil })
	kept, err := st.ReadStats(ctx, today(), today())
	if err != nil {
		t.Fatal(err)
	}
	if len(kept.Top) != 1 || kept.Top[0].Count != 3 || len(kept.NotFound) != 1 || kept.NotFound[0].Count != 1 {
		t.Errorf("after the outage the store keeps %+v, want x5a 3 times and nothere once", kept)
	}
	if r := report(t, c); r.Total != 4 || r.Unwritten != 0 {
		t.Errorf("report after the outage: total %d, unwritten %d; want 4, 0", r.Total, r.Unwritten)
	}
}
