package storetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/caddy-ark/caddy-ark/store"
)

// RunList checks store.Lister: List answers exactly what ListQuery.Matches
// selects from Each, in key order, whatever the query and however many it
// reads ahead; states follow every kind of change; fn stops it. Run runs
// it; a backend whose settings change how it lists runs it again with
// them.
func RunList(t *testing.T, open func(t *testing.T) store.Store, reopen func(t *testing.T, s store.Store) store.Store) {
	ctx := context.Background()
	lister := func(t *testing.T, s store.Store) store.Lister {
		t.Helper()
		l := s
		return l
	}
	// list returns the keys List calls fn with.
	list := func(t *testing.T, s store.Store, q store.ListQuery) []string {
		t.Helper()
		var keys []string
		if err := lister(t, s).List(ctx, q, func(b *store.Binding) error {
			if !q.Matches(b) {
				t.Errorf("List(%+v) gave %+v, which the query does not match", q, b)
			}
			keys = append(keys, b.Key)
			return nil
		}); err != nil {
			t.Fatalf("List(%+v): %v", q, err)
		}
		return keys
	}
	// expect returns the keys of Each that q matches.
	expect := func(t *testing.T, s store.Store, q store.ListQuery) []string {
		t.Helper()
		var keys []string
		if err := s.Each(ctx, func(b *store.Binding) error {
			if q.Matches(b) {
				keys = append(keys, b.Key)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return keys
	}
	queries := []store.ListQuery{
		{},
		{Prefix: "ark:12345/x5"},
		{Prefix: "ark:12345/x5b", State: store.StateBound},
		{State: store.StateBound},
		{State: store.StateWithdrawn},
		{State: store.StateMinted},
		{Prefix: "urn:"},
		{Prefix: "ark:12345/x6", State: store.StateMinted},
		{Text: "OLD.example"},
		{Text: "ada"},
		{Text: "50%_\\"},
		{Text: "old", Prefix: "ark:12345/x5", State: store.StateBound},
		{Text: "nothing at all"},
		{After: "ark:12345/x5m"},
		{After: "ark:12345/x5m", Prefix: "ark:12345/x5", State: store.StateWithdrawn},
		{After: "zzz"},
		{Prefix: "ark:12345/nothing"},
	}
	// same runs every query, reading ahead 1, 7 and the default, and
	// compares List with Each.
	same := func(t *testing.T, s store.Store) {
		t.Helper()
		for _, q := range queries {
			want := expect(t, s, q)
			for _, ahead := range []int{1, 7, 0} {
				q.Want = ahead
				if got := list(t, s, q); !slices.Equal(got, want) {
					t.Errorf("List(%+v): %d keys %v\nwant %d keys %v", q, len(got), got, len(want), want)
				}
			}
		}
	}

	t.Run("List answers what the query matches, in key order, however it reads ahead", func(t *testing.T) {
		s := open(t)
		fillForList(t, s, 300, 1)
		same(t, s)
		if got := list(t, s, store.ListQuery{State: store.StateWithdrawn}); len(got) == 0 {
			t.Fatal("the fixture has no withdrawn binding: the test checks nothing")
		}
		if got := list(t, s, store.ListQuery{Text: "50%_\\"}); len(got) == 0 {
			t.Fatal("the fixture has no binding holding LIKE's wildcards: the test checks nothing")
		}
	})

	t.Run("List follows changes of state, imports, and a reopened store", func(t *testing.T) {
		s := open(t)
		fillForList(t, s, 120, 2)
		key := Key(7)
		MustApply(t, s, store.Write{Binding: store.Binding{Key: key, Target: "https://old.example.org/7", Status: 302}, By: "k"})
		if got := list(t, s, store.ListQuery{Prefix: key, State: store.StateBound}); !slices.Contains(got, key) {
			t.Errorf("bound %s, not listed as bound: %v", key, got)
		}
		MustApply(t, s, store.Write{Binding: store.Binding{Key: key, Status: 410, Reason: "gone"}, By: "k"})
		if got := list(t, s, store.ListQuery{Prefix: key, State: store.StateBound}); slices.Contains(got, key) {
			t.Errorf("withdrawn %s, still listed as bound", key)
		}
		if got := list(t, s, store.ListQuery{Prefix: key, State: store.StateWithdrawn}); !slices.Contains(got, key) {
			t.Errorf("withdrawn %s, not listed as withdrawn: %v", key, got)
		}
		imported := []*store.Binding{
			{Key: "ark:12345/x5imp1", Target: "https://old.example.org/imp1", Status: 302},
			{Key: "ark:12345/x5imp2", Status: 410, Reason: "imported withdrawn"},
		}
		if _, err := s.Import(ctx, Feed(imported, nil), "importer"); err != nil {
			t.Fatal(err)
		}
		same(t, s)
		s = reopen(t, s)
		same(t, s)
	})

	t.Run("List stops when fn fails, with its error", func(t *testing.T) {
		s := open(t)
		fillForList(t, s, 50, 3)
		stop := errors.New("stop")
		n := 0
		err := lister(t, s).List(ctx, store.ListQuery{Want: 3}, func(*store.Binding) error {
			if n++; n == 5 {
				return stop
			}
			return nil
		})
		if err != stop || n != 5 {
			t.Errorf("List stopped by fn at the fifth: %v after %d calls", err, n)
		}
	})
}

// fillForList gives s n bindings of every state under ark:12345/x5,
// ark:12345/x6 and urn:isbn:, some with metadata, some whose target
// holds LIKE's wildcards, chosen by seed.
func fillForList(t *testing.T, s store.Store, n int, seed uint64) {
	t.Helper()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(seed, seed))
	var reserve []store.Binding
	for i := range n {
		key := Key(i)
		switch i % 10 {
		case 8:
			key = "ark:12345/x6" + key[len("ark:12345/x5"):]
		case 9:
			key = fmt.Sprintf("urn:isbn:97800000%05d", i)
		}
		hosts := []string{"old.example.org", "OLD.Example.org", "new.example.org", "50%_\\.example.org"}
		b := store.Binding{Key: key, Target: "https://" + hosts[r.IntN(len(hosts))] + "/" + key, Status: 302}
		if r.IntN(3) == 0 {
			b.Meta = map[string]string{"who": []string{"Ada Lovelace", "Grace Hopper", "ADA"}[r.IntN(3)], "what": "a letter"}
		}
		switch r.IntN(5) {
		case 0:
			reserve = append(reserve, store.Binding{Key: key})
			continue
		case 1:
			MustApply(t, s, store.Write{Binding: b, By: "k"})
			b = store.Binding{Key: key, Status: 410, Passthrough: true, Reason: "withdrawn", Target: b.Target, Meta: b.Meta}
		case 2:
			b.Target, b.Status = "/objects/"+key[len(key)-3:], 200
		}
		MustApply(t, s, store.Write{Binding: b, By: "k"})
	}
	if _, err := s.Reserve(ctx, reserve, "minter"); err != nil {
		t.Fatal(err)
	}
}
