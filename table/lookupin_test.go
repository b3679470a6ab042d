package table

import (
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// LookupIn finds what Lookup finds, in every form of table (a compiled
// one with inline entries on top too), in the caller's room, and leaves
// the room alone for a key the table does not hold. A table in the heap
// fills it without allocating; a compiled one copies no more than the
// target out of its mapping.
func TestLookupInFillsTheCallersRoom(t *testing.T) {
	forEachTableForm(t, func(t *testing.T, load tableForm) {
		tb, err := load(t, []string{testkit.WriteFile(t, "t.json", testkit.EveryField)}, []Entry{{ID: "ark:55555/inline", Target: "/inline"}})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for key, want := range tb.All() {
			var room Assignment
			got, ok := tb.LookupIn(key, &room)
			if !ok || got != &room || !SameAssignment(got, want) {
				t.Errorf("%s: %+v, %v; want %+v in the room", key, got, ok, want)
			}
			n++
		}
		if n != tb.Len() || n != 10 {
			t.Errorf("%d keys looked up, the table has %d", n, tb.Len())
		}
		room := Assignment{Target: "/untouched"}
		if got, ok := tb.LookupIn("ark:12345/absent", &room); ok || got != nil || room.Target != "/untouched" {
			t.Errorf("a miss: %+v, %v, room %+v", got, ok, room)
		}
		most := 0.0 // the heap holds the target already
		if _, inHeap := tb.(*heapTable); !inHeap {
			most = 1 // the target copied out of the mapping
		}
		if allocs := testing.AllocsPerRun(100, func() { tb.LookupIn("ark:12345/t", &room) }); allocs > most {
			t.Errorf("LookupIn allocates %v times, want at most %v", allocs, most)
		}
	})
}
