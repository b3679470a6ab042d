package stats

import (
	"context"
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
