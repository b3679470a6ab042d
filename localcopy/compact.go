package localcopy

import (
	"context"
	"fmt"
	"slices"

	"github.com/caddy-ark/caddy-ark/store"
)

// compact folds the journal into a new base: the old base and the
// journal's bindings merged in key order, as of the copy's sequence
// number, then a new, empty journal. Writes wait meanwhile; lookups go
// on from the old base until the new one is swapped in. A crash between
// the two renames leaves the new base with the old journal, whose id is
// not the new base's: it is dropped, being in the base already. The new
// base is checked even when ctx is done (the copy closing): it is in
// place, and the writes that follow must go to its journal.
func (c *Copy) compact(ctx context.Context) error {
	c.applyMu.Lock()
	defer c.applyMu.Unlock()
	c.mu.RLock()
	old, seq := c.base, c.seq
	keys := make([]string, 0, len(c.over))
	for k := range c.over {
		keys = append(keys, k)
	}
	over := make(map[string]entry, len(c.over))
	for k, e := range c.over {
		over[k] = e
	}
	c.mu.RUnlock()
	slices.Sort(keys)

	bw, err := newBaseWriter(c.dir)
	if err != nil {
		return err
	}
	next := 0
	addOver := func(upTo string, all bool) error {
		for ; next < len(keys) && (all || keys[next] < upTo); next++ {
			if b := over[keys[next]].b; b != nil {
				if err := bw.add(b); err != nil {
					return err
				}
			}
		}
		return nil
	}
	err = old.each(func(b *store.Binding) error {
		if err := addOver(b.Key, false); err != nil {
			return err
		}
		if next < len(keys) && keys[next] == b.Key {
			return nil // the journal's binding comes next, in its place
		}
		return bw.add(b)
	})
	if err == nil {
		err = addOver("", true)
	}
	if err != nil {
		bw.abort()
		return fmt.Errorf("local copy: compacting: %w", err)
	}
	id := newID()
	if err := bw.finish(seq, id); err != nil {
		return fmt.Errorf("local copy: compacting: %w", err)
	}
	b, err := openBase(context.WithoutCancel(ctx), c.dir) // just written: in the page cache
	if err != nil {
		return err
	}
	j, err := newJournal(c.dir, id)
	if err != nil {
		b.close()
		return err
	}
	c.mu.Lock()
	oldJournal := c.j
	c.base, c.over, c.j = b, map[string]entry{}, j
	c.mu.Unlock()
	old.close()
	return oldJournal.close()
}
