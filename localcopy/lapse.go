package localcopy

import "time"

// lapsed is called when the store's Watch stops hearing of other nodes'
// changes: a change committed just before may not have been heard of.
// Until the copy has read the history again (or failed to: no server
// answers), lookups wait for that read, at most lapseWait; the caches
// in front of the copy forget what they hold, so that their lookups come
// to the copy; and the copy reads the history at once.
func (c *Copy) lapsed() {
	if c.lapseWait < 0 {
		c.Wake()
		return
	}
	ch := make(chan struct{})
	if old := c.unsure.Swap(&ch); old != nil {
		close(*old)
	}
	c.tell(nil)
	c.Wake()
}

// settle ends the wait for p, the lapse pending when a read of the
// history began, now that it has ended, unless another lapse came since.
func (c *Copy) settle(p *chan struct{}) {
	if p != nil && c.unsure.CompareAndSwap(p, nil) {
		close(*p)
	}
}

// awaitSettled waits until no lapse is pending, p being the one pending
// now, or lapseWait has passed.
func (c *Copy) awaitSettled(p *chan struct{}) {
	t := time.NewTimer(c.lapseWait)
	defer t.Stop()
	for p != nil {
		select {
		case <-*p:
		case <-t.C:
			return
		}
		p = c.unsure.Load()
	}
}
