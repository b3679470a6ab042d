package table

import (
	"fmt"
	"runtime"
)

// residentStep is how much of a table one step of Lock reads and locks:
// asked for as read-ahead at once, then locked, before the next step. (A
// variable so that a test can lock a small table in several steps.)
var residentStep = 64 << 20

// Lock reads the whole table into memory and locks it there, a step at a
// time, and returns when it has: a kernel that pages out memory it sees
// little used (proactive reclaim, such as DAMON's) then cannot take the
// pages of a table read at random, whose every page looks cold, and a
// lookup never waits for the disk again. The pages are the page cache's,
// shared with every process that maps the file; they are unlocked when
// the mapping is released (the table replaced). It needs a locked-memory
// limit (RLIMIT_MEMLOCK) as large as the file: when the system refuses,
// Lock unlocks what it locked and says why, and the table serves on as
// before. It stops early, with what it locked so far, once stop is closed.
// It returns the bytes locked.
func (t *Compiled) Lock(stop <-chan struct{}) (int, error) {
	defer runtime.KeepAlive(t) // the mapping is released once t is garbage
	data := t.data
	for from := 0; from < len(data); from += residentStep {
		select {
		case <-stop:
			return from, nil
		default:
		}
		to := min(from+residentStep, len(data))
		for at := from; at < to; at += readAheadStep {
			willNeed(data, at, min(at+readAheadStep, to))
		}
		if err := lockMemory(data[from:to]); err != nil {
			unlockMemory(data[:from])
			return 0, fmt.Errorf("keeping %s in memory: %w", t.path, lockError(err, len(data)))
		}
	}
	return len(data), nil
}

// Lock keeps the compiled table in memory (see Compiled.Lock); the inline
// entries are in the heap already.
func (l *layeredTable) Lock(stop <-chan struct{}) (int, error) { return l.base.Lock(stop) }
