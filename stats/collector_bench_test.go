package stats

import (
	"context"
	"strconv"
	"testing"
)

// BenchmarkObserve measures what a request pays to have its answer
// counted: Collector.Observe, for a redirect and a name that resolves to
// nothing. The queue is emptied, off the clock, every queueSize/2 answers,
// so that every answer is queued, none dropped: "queued" is what each
// costs while the counting keeps up. "dropped" lets the queue fill, from
// GOMAXPROCS goroutines at once: what an answer costs once the counting
// has fallen behind.
func BenchmarkObserve(b *testing.B) {
	s := newSite(b)
	c := New(Config{}, Options{Store: s.store, Ours: s.rs.Ours})
	b.Cleanup(func() { c.Close() })
	for name, core := range map[string]string{"redirect": "ark:12345/x5a", "notfound": "ark:12345/x5nothere"} {
		res := s.rs.Resolve(context.Background(), core)
		b.Run(name+"/queued", func(b *testing.B) {
			before := c.Dropped()
			for i := range b.N {
				if i%(queueSize/2) == 0 {
					b.StopTimer()
					c.mu.Lock()
					c.catchUp()
					c.mu.Unlock()
					b.StartTimer()
				}
				c.Observe(res, res.Outcome)
			}
			if d := c.Dropped() - before; d != 0 {
				b.Fatalf("%d answers dropped", d)
			}
		})
		b.Run(name+"/dropped", func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					c.Observe(res, res.Outcome)
				}
			})
		})
	}
}

// BenchmarkCount measures the counting goroutine's work for one answer:
// how many answers a second one core counts. "same" counts one identifier
// over and over, "distinct" cycles through 4096 identifiers (a template's),
// ten times as many as the day's sketch holds, so that nearly every answer
// takes the place of another name in it.
func BenchmarkCount(b *testing.B) {
	s := newSite(b)
	c := New(Config{}, Options{Store: s.store, Ours: s.rs.Ours})
	b.Cleanup(func() { c.Close() })
	var distinct []event
	for i := range 4096 {
		res := s.rs.Resolve(context.Background(), "ark:12345/t7"+strconv.Itoa(i))
		distinct = append(distinct, event{res, res.Outcome})
	}
	same := s.rs.Resolve(context.Background(), "ark:12345/x5a")
	notFound := s.rs.Resolve(context.Background(), "ark:12345/x5nothere")
	for name, events := range map[string][]event{
		"same":     {{same, same.Outcome}},
		"notfound": {{notFound, notFound.Outcome}},
		"distinct": distinct,
	} {
		b.Run(name, func(b *testing.B) {
			c.mu.Lock()
			defer c.mu.Unlock()
			i := 0
			for b.Loop() {
				c.count(c.cur, c.today(), events[i%len(events)])
				i++
			}
		})
	}
}
