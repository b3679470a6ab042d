package resolve_test

import (
	"context"
	"testing"

	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/table"
)

// ResolveIn resolves as Resolve does. An ARK the table holds, in any
// spelling, is resolved in the caller's room, one room per resolution,
// without an allocation of its own for a redirect (an in-place target
// is parsed into one); any other core gets Resolve's answer.
func TestResolveInResolvesATableHitInTheRoom(t *testing.T) {
	rs := newResolver(t, []table.Entry{
		{ID: "ark:12345/t1", Target: "https://table.example.org/t1", Meta: map[string]string{"who": "A"}},
		{ID: "ark:12345/p1", Target: "/objects/p1.html"},
	}, nil)
	ctx := context.Background()
	for _, core := range []string{"ark:12345/t1", "ark:/12345/t-1", "ark:12345/p1", "ark:12345/t1/page.html", "ark:12345/none", "ark:99999/x", "urn:nbn:de:1"} {
		want := rs.Resolve(ctx, core)
		var room, other resolve.Room
		got := rs.ResolveIn(ctx, core, &room)
		if got.Outcome != want.Outcome || got.Status != want.Status || got.Key != want.Key || got.How != want.How ||
			got.Via != want.Via || got.Target != want.Target || got.Reason != want.Reason || got.Shoulder != want.Shoulder ||
			(got.Entry == nil) != (want.Entry == nil) || got.Entry != nil && !table.SameAssignment(got.Entry, want.Entry) ||
			(got.Local == nil) != (want.Local == nil) || got.Local != nil && *got.Local != *want.Local {
			t.Errorf("%s: ResolveIn %+v, Resolve %+v", core, got, want)
		}
		if again := rs.ResolveIn(ctx, core, &other); want.How == "exact" && again == got {
			t.Errorf("%s: two rooms share one resolution", core)
		}
	}
	for core, most := range map[string]float64{"ark:12345/t1": 0, "ark:12345/p1": 1} {
		rooms, i := make([]resolve.Room, 101), 0 // AllocsPerRun runs once more than asked
		allocs := testing.AllocsPerRun(100, func() {
			rs.ResolveIn(ctx, core, &rooms[i])
			i++
		})
		if allocs > most {
			t.Errorf("%s: ResolveIn allocates %v times, want at most %v", core, allocs, most)
		}
	}
}
