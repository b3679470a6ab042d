package stats

import (
	"strconv"
	"testing"
)

// A name requested often, arriving after the sketch is full of names
// requested once, is held, with no more than the requests it had.
func TestSketchHoldsAFrequentLateName(t *testing.T) {
	s := newSketch(8)
	for i := range 100 {
		s.add("once" + strconv.Itoa(i))
	}
	for i := range 300 {
		s.add("often")
		s.add("noise" + strconv.Itoa(i))
	}
	held := map[string]uint64{}
	s.each(func(name string, n uint64) { held[name] = n })
	if len(held) != 8 {
		t.Errorf("the sketch holds %d names, want 8", len(held))
	}
	if n, ok := held["often"]; !ok || n < 250 || n > 300 {
		t.Errorf("often: held %v with %d requests; want held, with 250 to 300 of its 300", ok, n)
	}
	for name, n := range held {
		if name != "often" && n > 1 {
			t.Errorf("%s: %d requests, but it had one", name, n)
		}
	}
}
