package table

import (
	"os"
	"sync/atomic"
)

// warmStep is how much of the index one step of Warm reads: asked for as
// read-ahead at once, then waited for page by page before the next step,
// so that warming never has more than one step of reads in flight ahead
// of the lookups' own.
const warmStep = 2 << 20

// warmSink keeps the compiler from dropping the reads that wait for pages.
var warmSink atomic.Uint64

// Warm reads the table's index (its slots, then its records) into the
// page cache, a step at a time, and returns when it has: every lookup
// touches one slot and one record, each a page fault that waits for the
// disk while they are not cached, which is what makes the first seconds
// after a start of a large table slow. Keys and targets, the largest
// part, are left to the lookups. It changes nothing and may run beside
// lookups; it is meant to run in a goroutine of its own once the table
// is open.
func (t *Compiled) Warm() {
	page := os.Getpagesize()
	for _, section := range [][]byte{t.slots, t.records} {
		from := offsetIn(t.data, section)
		end := from + len(section)
		for ; from < end; from += warmStep {
			to := min(from+warmStep, end)
			for at := from; at < to; at += readAheadStep {
				willNeed(t.data, at, min(at+readAheadStep, to))
			}
			var sum uint64
			for at := from &^ (page - 1); at < to; at += page {
				sum += uint64(t.data[max(at, from)])
			}
			warmSink.Add(sum)
		}
	}
}

// Warm reads the compiled table's index into the page cache (see
// Compiled.Warm); the inline entries are in the heap already.
func (l *layeredTable) Warm() { l.base.Warm() }

// offsetIn returns where section, a subslice of data, starts in data.
func offsetIn(data, section []byte) int {
	return cap(data) - cap(section)
}
