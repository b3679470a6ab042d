package stats

import "strings"

// maxRows bounds the resolution rows a window holds: past it, new rows
// count under their coarse shoulder (see Collector.coarseShoulder).
const maxRows = 10000

// sketchFactor is how many more names a window's sketch holds than the
// list keeps: the sketch's least counted names are the least certain.
const sketchFactor = 4

// window is what a collector counted since its last flush: exact counts
// per shoulder, and sketches of the most requested and not-found names,
// by day.
type window struct {
	res      map[resKey]uint64
	top      map[string]*sketch // by day
	notFound map[string]*sketch
}

func newWindow() *window {
	return &window{res: map[resKey]uint64{}, top: map[string]*sketch{}, notFound: map[string]*sketch{}}
}

// addToSketch counts name on day in the sketch of list, made of size
// names.
func addToSketch(list map[string]*sketch, day, name string, size int) {
	s := list[day]
	if s == nil {
		s = newSketch(size)
		list[day] = s
	}
	s.add(name)
}

// tally returns w's counts, its sketches' as counted since each name was
// taken in.
func (w *window) tally() *tally {
	t := newTally()
	for k, n := range w.res {
		t.res[k] = n
	}
	for _, l := range []struct {
		to   map[string]map[string]uint64
		from map[string]*sketch
	}{{t.top, w.top}, {t.notFound, w.notFound}} {
		for day, s := range l.from {
			s.each(func(name string, n uint64) { addName(l.to, day, name, n) })
		}
	}
	return t
}

// count adds one event on day to w.
func (c *Collector) count(w *window, day string, ev event) {
	k := resKey{day, c.shoulderOf(ev.res), ev.out.String()}
	if _, ok := w.res[k]; !ok {
		if len(w.res) >= maxRows {
			k.shoulder = c.coarseShoulder(ev.res)
		}
		k.shoulder = strings.Clone(k.shoulder) // it may be part of a long request string
	}
	w.res[k]++
	if name := topName(ev.res, ev.out); name != "" {
		addToSketch(w.top, day, name, c.top*sketchFactor)
	}
	if name := c.notFoundName(ev.res, ev.out); name != "" {
		addToSketch(w.notFound, day, name, c.notFound*sketchFactor)
	}
}
