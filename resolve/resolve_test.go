package resolve_test

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddy-ark/caddy-ark/table"
)

// openStore opens a bbolt store in a temporary directory, holding bs.
func openStore(t *testing.T, bs ...store.Binding) store.Store {
	t.Helper()
	s := testkit.Provision(t, &bolt.Store{Path: filepath.Join(t.TempDir(), "ark.db")})
	ctx := context.Background()
	for _, b := range bs {
		if _, err := s.Apply(ctx, store.Write{Binding: b, By: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// newResolver makes a resolver of NAAN 12345 from the table entries and
// the store.
func newResolver(t *testing.T, entries []table.Entry, s store.Store) *resolve.Resolver {
	t.Helper()
	tbl, err := table.Load(nil, entries)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := resolve.New(resolve.Options{Table: tbl, NAANs: []string{"12345"}, Store: s, MaxLength: 1024})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rs.Close)
	return rs
}

// The table is read before the store, a store binding answers the
// identifiers no table assigns, in any spelling, and a passthrough
// binding answers for its descendants.
func TestResolveTableThenStore(t *testing.T) {
	s := openStore(t,
		store.Binding{Key: "ark:12345/s1", Target: "https://store.example.org/s1", Status: http.StatusFound, Passthrough: true},
		store.Binding{Key: "ark:12345/s2", Target: "https://store.example.org/s2", Status: http.StatusFound},
	)
	rs := newResolver(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}}, s)
	ctx := context.Background()
	for _, c := range []struct {
		core, how, target string
		outcome           resolve.Outcome
	}{
		{"ark:12345/t1", "exact", "https://table.example.org/t1", resolve.OutcomeRedirect},
		{"ark:/12345/s1", "exact", "https://store.example.org/s1", resolve.OutcomeRedirect},
		{"ark:12345/s1/page.html", "inherited", "https://store.example.org/s1/page.html", resolve.OutcomeRedirect},
		{"ark:12345/s2/page.html", "", "", resolve.OutcomeNotFound},
		{"ark:12345/none", "", "", resolve.OutcomeNotFound},
	} {
		res := rs.Resolve(ctx, c.core)
		if res.Outcome != c.outcome || res.How != c.how || res.Target != c.target {
			t.Errorf("%s: %v %q %q, want %v %q %q (%s)", c.core, res.Outcome, res.How, res.Target, c.outcome, c.how, c.target, res.Reason)
		}
	}
}

// A name minted and not bound is not found, says so, and assigns
// nothing to its descendants, even with passthrough; a withdrawn one is
// gone, 410, with a reason.
func TestResolveMintedAndWithdrawn(t *testing.T) {
	s := openStore(t,
		store.Binding{Key: "ark:12345/m1", Passthrough: true},
		store.Binding{Key: "ark:12345/w1", Target: "https://store.example.org/w1", Status: http.StatusGone, Reason: "duplicate"},
	)
	rs := newResolver(t, nil, s)
	ctx := context.Background()
	res := rs.Resolve(ctx, "ark:12345/m1")
	if res.Outcome != resolve.OutcomeNotFound || res.Status != http.StatusNotFound || !strings.Contains(res.Reason, "minted but not bound") {
		t.Errorf("minted: %v %d %q", res.Outcome, res.Status, res.Reason)
	}
	if res := rs.Resolve(ctx, "ark:12345/m1/child"); res.Outcome != resolve.OutcomeNotFound || res.How != "" {
		t.Errorf("below a minted name: %v %q, want not found", res.Outcome, res.How)
	}
	res = rs.Resolve(ctx, "ark:12345/w1")
	if res.Outcome != resolve.OutcomeGone || res.Status != http.StatusGone || !strings.Contains(res.Reason, "withdrawn") {
		t.Errorf("withdrawn: %v %d %q", res.Outcome, res.Status, res.Reason)
	}
}

// An identifier has one source: a table that assigns one the store holds
// is refused, naming the store's binding and its state.
func TestNewRefusesTwoSources(t *testing.T) {
	s := openStore(t,
		store.Binding{Key: "ark:12345/both"},
		store.Binding{Key: "ark:12345/bound", Target: "https://store.example.org/", Status: http.StatusFound},
		store.Binding{Key: "ark:12345/gone", Status: http.StatusGone, Reason: "duplicate"},
	)
	for key, state := range map[string]string{"ark:12345/both": "minted", "ark:12345/bound": "bound", "ark:12345/gone": "withdrawn"} {
		tbl, err := table.Load(nil, []table.Entry{{ID: key, Target: "https://table.example.org/"}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = resolve.New(resolve.Options{Table: tbl, NAANs: []string{"12345"}, Store: s, MaxLength: 1024})
		var conflict *resolve.SourceConflictError
		if !errors.As(err, &conflict) || !strings.Contains(err.Error(), key+" is "+state+" in the store") {
			t.Errorf("%s: %v, want a conflict naming it %s in the store", key, err, state)
		}
		// The same from a store read whole (what a large table, or the
		// check through the API's export, does).
		err = resolve.CheckSources(context.Background(), tbl, eachOnly{s})
		if !errors.As(err, &conflict) || !strings.Contains(err.Error(), key+" is "+state+" in the store") {
			t.Errorf("%s, the store read whole: %v, want a conflict naming it %s in the store", key, err, state)
		}
	}
}

// A request that does not parse is refused, 400, and one of a NAAN not
// the site's is sent to the global resolver when there is one.
func TestResolveInvalidAndForeign(t *testing.T) {
	tbl, err := table.Load(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := resolve.New(resolve.Options{Table: tbl, NAANs: []string{"12345"}, Foreign: "https://n2t.net", MaxLength: 1024})
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	ctx := context.Background()
	if res := rs.Resolve(ctx, "ark:/"); res.Outcome != resolve.OutcomeInvalid || res.Status != http.StatusBadRequest {
		t.Errorf("ark:/: %v %d, want invalid 400", res.Outcome, res.Status)
	}
	res := rs.Resolve(ctx, "ark:13030/x1")
	if res.Outcome != resolve.OutcomeForeign || !strings.HasPrefix(res.Target, "https://n2t.net/ark:") {
		t.Errorf("foreign: %v %q", res.Outcome, res.Target)
	}
	if !rs.Ours("12345") || rs.Ours("13030") {
		t.Error("Ours: the site's NAAN is 12345 only")
	}
}
