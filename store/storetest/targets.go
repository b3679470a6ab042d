package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
)

// runTargets checks store.TargetChecks, which every backend implements.
func runTargets(t *testing.T, open func(t *testing.T) store.Store, reopen func(t *testing.T, s store.Store) store.Store) {
	ctx := context.Background()
	checks := func(t *testing.T, s store.Store) store.TargetChecks {
		t.Helper()
		tc := s
		return tc
	}
	base := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	ref := func(target, key string, due int, paused bool) store.TargetRef {
		return store.TargetRef{Target: target, Key: key, Due: base.Add(time.Duration(due) * time.Minute), Paused: paused}
	}
	lookup := func(t *testing.T, tc store.TargetChecks, target string) *store.TargetCheck {
		t.Helper()
		got, err := tc.LookupTargetChecks(ctx, []string{target})
		if err != nil {
			t.Fatal(err)
		}
		return got[0]
	}
	due := func(t *testing.T, tc store.TargetChecks, at int, n int) []string {
		t.Helper()
		got, err := tc.DueTargets(ctx, base.Add(time.Duration(at)*time.Minute), n)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range got {
			out = append(out, c.Target)
		}
		return out
	}
	states := func(t *testing.T, tc store.TargetChecks) map[store.TargetState]int {
		t.Helper()
		got, err := tc.TargetStates(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}

	t.Run("a sweep adds each distinct target once, unchecked and due when its ref says", func(t *testing.T) {
		tc := checks(t, open(t))
		sweep := mustSweep(t, tc)
		mustMark(t, tc, sweep, ref("https://a.example/1", "ark:12345/a", 2, false), ref("https://a.example/1", "ark:12345/b", 1, false), ref("/local/x", "ark:12345/c", 3, false))
		mustMark(t, tc, sweep, ref("https://a.example/1", "ark:12345/d", 0, false))
		c := lookup(t, tc, "https://a.example/1")
		if c == nil || c.State != store.TargetUnchecked || c.Key != "ark:12345/a" || !c.Due.Equal(base.Add(2*time.Minute)) || !c.Checked.IsZero() || c.Paused {
			t.Errorf("a target named four times = %+v; want unchecked, the sweep's first key, due as first added", c)
		}
		next := mustSweep(t, tc)
		mustMark(t, tc, next, ref("https://a.example/1", "ark:12345/e", 0, false), ref("https://a.example/1", "ark:12345/f", 0, false))
		if c := lookup(t, tc, "https://a.example/1"); c.Key != "ark:12345/e" || !c.Due.Equal(base.Add(2*time.Minute)) {
			t.Errorf("marked by the next sweep: %+v; want its first key, due unchanged", c)
		}
		if got := lookup(t, tc, "https://nowhere.example/"); got != nil {
			t.Errorf("a target never marked = %+v, want nil", got)
		}
		if got := states(t, tc); got[store.TargetUnchecked] != 2 || len(got) != 1 {
			t.Errorf("states = %v, want 2 unchecked", got)
		}
		if got := due(t, tc, 2, 10); !slices.Equal(got, []string{"https://a.example/1"}) {
			t.Errorf("due at +2m: %v", got)
		}
		if got := due(t, tc, 5, 10); !slices.Equal(got, []string{"https://a.example/1", "/local/x"}) {
			t.Errorf("due at +5m: %v, want both, earliest first", got)
		}
		if got := due(t, tc, 5, 1); len(got) != 1 {
			t.Errorf("due, at most 1: %v", got)
		}
		if got := due(t, tc, 1, 10); len(got) != 0 {
			t.Errorf("due at +1m: %v, want none", got)
		}
	})

	t.Run("a target is paused only when every ref of the sweep is, and paused targets are never due", func(t *testing.T) {
		tc := checks(t, open(t))
		one := mustSweep(t, tc)
		mustMark(t, tc, one, ref("https://p.example/both", "k1", 0, true), ref("https://p.example/all", "k2", 0, true))
		mustMark(t, tc, one, ref("https://p.example/both", "k3", 0, false), ref("https://p.example/all", "k4", 0, true))
		if c := lookup(t, tc, "https://p.example/both"); c.Paused {
			t.Error("a target with one ref not paused is paused")
		}
		if c := lookup(t, tc, "https://p.example/all"); !c.Paused {
			t.Error("a target whose refs are all paused is not paused")
		}
		if got := due(t, tc, 10, 10); !slices.Equal(got, []string{"https://p.example/both"}) {
			t.Errorf("due: %v, want only the target not paused", got)
		}
		two := mustSweep(t, tc)
		if two <= one {
			t.Fatalf("sweep %d after sweep %d", two, one)
		}
		mustMark(t, tc, two, ref("https://p.example/all", "k2", 0, false), ref("https://p.example/both", "k1", 0, true))
		if got := due(t, tc, 10, 10); !slices.Equal(got, []string{"https://p.example/all"}) {
			t.Errorf("due after the next sweep paused one and resumed the other: %v", got)
		}
	})

	t.Run("ending a sweep forgets the targets it did not mark", func(t *testing.T) {
		tc := checks(t, open(t))
		one := mustSweep(t, tc)
		for i := range 30 {
			mustMark(t, tc, one, ref(fmt.Sprintf("https://s.example/%02d", i), "k", i, false))
		}
		if n, err := tc.EndTargetSweep(ctx, one); err != nil || n != 0 {
			t.Fatalf("EndTargetSweep of the only sweep = %d, %v; want 0", n, err)
		}
		two := mustSweep(t, tc)
		for i := 0; i < 30; i += 3 {
			mustMark(t, tc, two, ref(fmt.Sprintf("https://s.example/%02d", i), "k", i, false))
		}
		mustPut(t, tc, &store.TargetCheck{Target: "https://s.example/01", State: store.TargetBroken, Code: "404", Failures: 3, Final: "https://s.example/01", Due: base})
		n, err := tc.EndTargetSweep(ctx, two)
		if err != nil || n != 20 {
			t.Fatalf("EndTargetSweep = %d, %v; want the 20 not marked again", n, err)
		}
		if c := lookup(t, tc, "https://s.example/01"); c != nil {
			t.Errorf("a target not marked is kept: %+v", c)
		}
		if c := lookup(t, tc, "https://s.example/03"); c == nil {
			t.Error("a target marked is forgotten")
		}
		if got := due(t, tc, 100, 100); len(got) != 10 {
			t.Errorf("due after the sweep: %d targets, want 10", len(got))
		}
		if got := states(t, tc); got[store.TargetUnchecked] != 10 || got[store.TargetBroken] != 0 {
			t.Errorf("states after the sweep = %v, want 10 unchecked", got)
		}
		if n, err := tc.SharedFinal(ctx, "https://s.example/01", "", 10); err != nil || n != 0 {
			t.Errorf("the final URL of a forgotten target is still counted: %d, %v", n, err)
		}
	})

	t.Run("a check is stored, keeps its key, moves its due time and counts by state", func(t *testing.T) {
		s := open(t)
		tc := checks(t, s)
		sweep := mustSweep(t, tc)
		mustMark(t, tc, sweep, ref("https://c.example/a", "ark:12345/a", 0, false), ref("https://c.example/b", "ark:12345/b", 1, false))
		checked := base.Add(90 * time.Second)
		put := &store.TargetCheck{Target: "https://c.example/a", Key: "ignored", Paused: true, State: store.TargetFailing, Code: "timeout",
			Failures: 1, Checked: checked, Since: checked, Final: "https://c.example/a", Page: "https://c.example/a", Due: base.Add(time.Hour)}
		mustPut(t, tc, put, &store.TargetCheck{Target: "https://c.example/unknown", State: store.TargetOK, Due: base})
		got := lookup(t, tc, "https://c.example/a")
		want := *put
		want.Key, want.Paused = "ark:12345/a", false
		if got == nil || !sameCheck(got, &want) {
			t.Errorf("stored check = %+v, want %+v", got, want)
		}
		if c := lookup(t, tc, "https://c.example/unknown"); c != nil {
			t.Errorf("a check of a target not in use was stored: %+v", c)
		}
		if got := due(t, tc, 30, 10); !slices.Equal(got, []string{"https://c.example/b"}) {
			t.Errorf("due at +30m = %v; the checked target is due in an hour", got)
		}
		if got := due(t, tc, 61, 10); !slices.Equal(got, []string{"https://c.example/b", "https://c.example/a"}) {
			t.Errorf("due at +61m = %v", got)
		}
		if got := states(t, tc); got[store.TargetFailing] != 1 || got[store.TargetUnchecked] != 1 {
			t.Errorf("states = %v, want 1 failing, 1 unchecked", got)
		}
		if err := tc.SetTargetsDue(ctx, []store.TargetRef{{Target: "https://c.example/a", Due: base}, {Target: "https://c.example/unknown", Due: base}}); err != nil {
			t.Fatal(err)
		}
		if got := due(t, tc, 0, 10); !slices.Equal(got, []string{"https://c.example/a"}) {
			t.Errorf("due at once after SetTargetsDue: %v", got)
		}
		if got := lookup(t, tc, "https://c.example/a"); got.State != store.TargetFailing || got.Code != "timeout" || !got.Due.Equal(base) {
			t.Errorf("SetTargetsDue changed more than the due time: %+v", got)
		}
		if c := lookup(t, tc, "https://c.example/unknown"); c != nil {
			t.Errorf("SetTargetsDue added a target: %+v", c)
		}
		notified := *lookup(t, tc, "https://c.example/a")
		notified.Notified = true
		mustPut(t, tc, &notified)
		stale := notified
		stale.Notified, stale.Failures = false, 2
		mustPut(t, tc, &stale)
		if got := lookup(t, tc, "https://c.example/a"); !got.Notified || got.Failures != 2 {
			t.Errorf("a result judged before the notification undid it: %+v", got)
		}
		stale.State, stale.Since = store.TargetOK, stale.Since.Add(time.Minute)
		mustPut(t, tc, &stale)
		if got := lookup(t, tc, "https://c.example/a"); got.Notified {
			t.Errorf("a new state kept the notification of the old: %+v", got)
		}
		stale.State, stale.Since = store.TargetFailing, notified.Since
		mustPut(t, tc, &stale)
		want.Failures = 2
		want.Due = base
		back := checks(t, reopen(t, s))
		if got := lookup(t, back, "https://c.example/a"); got == nil || !sameCheck(got, &want) {
			t.Errorf("after reopening: %+v, want %+v", got, want)
		}
	})

	t.Run("SharedFinal counts the other targets that ended at a URL, up to a limit", func(t *testing.T) {
		tc := checks(t, open(t))
		sweep := mustSweep(t, tc)
		var puts []*store.TargetCheck
		for i := range 6 {
			target := fmt.Sprintf("https://old.example/item/%d", i)
			mustMark(t, tc, sweep, ref(target, "k", 0, false))
			puts = append(puts, &store.TargetCheck{Target: target, State: store.TargetOK, Code: "200", Final: "https://new.example/", Due: base})
		}
		mustPut(t, tc, puts...)
		for _, c := range []struct {
			target string
			limit  int
			want   int
		}{{"https://old.example/item/0", 10, 5}, {"https://elsewhere.example/", 10, 6}, {"https://old.example/item/0", 3, 3}} {
			if n, err := tc.SharedFinal(ctx, "https://new.example/", c.target, c.limit); err != nil || n != c.want {
				t.Errorf("SharedFinal(other than %s, limit %d) = %d, %v; want %d", c.target, c.limit, n, err, c.want)
			}
		}
		puts[0].Final = "https://old.example/item/0"
		mustPut(t, tc, puts[0])
		if n, _ := tc.SharedFinal(ctx, "https://new.example/", "", 10); n != 5 {
			t.Errorf("after one target's final URL changed: %d share it, want 5", n)
		}
	})

	t.Run("EachTargetCheck sees every target once, across batches", func(t *testing.T) {
		tc := checks(t, open(t))
		sweep := mustSweep(t, tc)
		const n = store.EachBatchCount*2 + 17
		var refs []store.TargetRef
		for i := range n {
			refs = append(refs, ref(fmt.Sprintf("https://e.example/%05d", i), "k", 0, false))
			if len(refs) == 500 {
				mustMark(t, tc, sweep, refs...)
				refs = refs[:0]
			}
		}
		mustMark(t, tc, sweep, refs...)
		seen := map[string]int{}
		if err := tc.EachTargetCheck(ctx, func(c *store.TargetCheck) error { seen[c.Target]++; return nil }); err != nil {
			t.Fatal(err)
		}
		if len(seen) != n {
			t.Errorf("EachTargetCheck saw %d targets, want %d", len(seen), n)
		}
		for target, times := range seen {
			if times != 1 || !strings.HasPrefix(target, "https://e.example/") {
				t.Errorf("%s seen %d times", target, times)
			}
		}
	})

	t.Run("one holder at a time has the lease", func(t *testing.T) {
		tc := checks(t, open(t))
		lease := func(holder string, ttl time.Duration) bool {
			t.Helper()
			ok, err := tc.LeaseTargets(ctx, holder, ttl)
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		if !lease("a", time.Hour) {
			t.Fatal("the first holder did not get the lease")
		}
		if lease("b", time.Hour) {
			t.Fatal("a second holder got the lease while the first holds it")
		}
		if !lease("a", time.Hour) {
			t.Fatal("the holder could not renew its lease")
		}
		if err := tc.ReleaseTargets(ctx, "b"); err != nil {
			t.Fatal(err)
		}
		if lease("b", time.Hour) {
			t.Fatal("a release by another holder ended the lease")
		}
		if err := tc.ReleaseTargets(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if !lease("b", 300*time.Millisecond) {
			t.Fatal("the lease was not free once released")
		}
		if lease("a", time.Hour) {
			t.Fatal("another holder took a lease that runs")
		}
		testkit.WaitFor(t, "b's lease to run out", func() bool { return lease("a", time.Hour) })
	})
}

// sameCheck reports whether a and b hold the same check, times compared as
// instants.
func sameCheck(a, b *store.TargetCheck) bool {
	x, y := *a, *b
	if !x.Checked.Equal(y.Checked) || !x.Since.Equal(y.Since) || !x.Due.Equal(y.Due) {
		return false
	}
	x.Checked, x.Since, x.Due, y.Checked, y.Since, y.Due = time.Time{}, time.Time{}, time.Time{}, time.Time{}, time.Time{}, time.Time{}
	return x == y
}

func mustSweep(t *testing.T, tc store.TargetChecks) uint64 {
	t.Helper()
	sweep, err := tc.BeginTargetSweep(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return sweep
}

func mustMark(t *testing.T, tc store.TargetChecks, sweep uint64, refs ...store.TargetRef) {
	t.Helper()
	if err := tc.MarkTargets(context.Background(), sweep, refs); err != nil {
		t.Fatal(err)
	}
}

func mustPut(t *testing.T, tc store.TargetChecks, checks ...*store.TargetCheck) {
	t.Helper()
	if err := tc.PutTargetChecks(context.Background(), checks); err != nil {
		t.Fatal(err)
	}
}
