package bolt

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/caddy-ark/caddy-ark/store"
	bolt "go.etcd.io/bbolt"
)

// bucketStates indexes the bindings by state: a state's byte (see
// stateByte) and a key → nothing, for every key of the bindings bucket.
// record keeps it; a file from before it had one gets it when it opens.
var bucketStates = []byte("states")

// listScanMax is the most keys List reads from one bucket in one read
// transaction: a text query that matches little reads the store a
// slice at a time, letting writers in between.
const listScanMax = 10000

// stateByte is the byte of a state in bucketStates.
func stateByte(st store.State) byte {
	switch st {
	case store.StateMinted:
		return 'm'
	case store.StateWithdrawn:
		return 'w'
	}
	return 'b'
}

// stateKey is the key of a binding in bucketStates.
func stateKey(b *store.Binding) []byte {
	return append([]byte{stateByte(b.State())}, b.Key...)
}

// indexState moves the key of nb in bucketStates from the state of old
// (nil for a new key) to its own.
func indexState(tx *bolt.Tx, old, nb *store.Binding) error {
	bk := tx.Bucket(bucketStates)
	if old != nil {
		if old.State() == nb.State() {
			return nil
		}
		if err := bk.Delete(stateKey(old)); err != nil {
			return err
		}
	}
	return bk.Put(stateKey(nb), nil)
}

// indexStates makes bucketStates in a file that has none, from its
// bindings.
func indexStates(tx *bolt.Tx) error {
	if tx.Bucket(bucketStates) != nil {
		return nil
	}
	states, err := tx.CreateBucket(bucketStates)
	if err != nil {
		return err
	}
	states.FillPercent = sortedFill // one transaction, in key order
	return tx.Bucket(bucketBindings).ForEach(func(k, v []byte) error {
		b, err := decodeBinding(string(k), v)
		if err != nil {
			return err
		}
		return states.Put(stateKey(b), nil)
	})
}

// List implements store.Lister. The bindings of a state come from
// bucketStates; a text query reads the bindings of its range, a slice a
// transaction, and looks into a binding's JSON only when its bytes hold
// the text. Bindings of a committed import that the merger has not moved
// yet are read from its bucket, with the same filter.
func (b *boltDB) List(ctx context.Context, q store.ListQuery, fn func(*store.Binding) error) error {
	want := q.Want
	if want <= 0 {
		want = store.EachBatchCount
	}
	lq := newListQuery(q)
	after := q.After
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var (
			batch   []*store.Binding
			horizon string
			done    bool
		)
		err := b.view(func(tx *bolt.Tx) error {
			var err error
			batch, horizon, done, err = lq.batch(tx, after, want)
			return err
		})
		if err != nil {
			return err
		}
		for _, bd := range batch {
			if err := fn(bd); err != nil {
				return err
			}
		}
		if done {
			return nil
		}
		after = horizon
	}
}

// listQuery is a ListQuery prepared for reading bbolt.
type listQuery struct {
	store.ListQuery
	prefix []byte
	text   []byte // Text lowered, for looking into the JSON; nil when it cannot be looked for there
}

func newListQuery(q store.ListQuery) *listQuery {
	lq := &listQuery{ListQuery: q, prefix: []byte(q.Prefix)}
	// A binding's bytes hold its target and metadata values as they are
	// (the compact encoding), or as JSON writes them (a file of format 1),
	// which is as they are unless JSON escapes characters (quotes,
	// backslashes, <, >, &, controls): text without them is in a matching
	// binding's bytes, ignoring case.
	if q.Text != "" && !strings.ContainsFunc(q.Text, func(r rune) bool { return r < ' ' || strings.ContainsRune("\"\\<>&\u2028\u2029", r) }) {
		lq.text = bytes.ToLower([]byte(q.Text))
	}
	return lq
}

// source is one bucket that List reads in a transaction.
type source struct {
	found []*store.Binding
	last  []byte // the last key read
	ended bool   // read to the end of the range
}

// batch reads the matches after after in tx, up to want from each
// bucket, and returns those it is sure of in key order: all that come
// before the first key some bucket did not read past (horizon). done says
// that every bucket is read to its end.
func (lq *listQuery) batch(tx *bolt.Tx, after string, want int) (matches []*store.Binding, horizon string, done bool, err error) {
	bv := openView(tx)
	var sources []*source
	if states := tx.Bucket(bucketStates); lq.State != store.StateAny && states != nil {
		src, err := lq.readIndex(states, bv.bindings, after, want)
		if err != nil {
			return nil, "", false, err
		}
		sources = append(sources, src)
	} else {
		src, err := lq.read(bv.bindings, 0, after, want)
		if err != nil {
			return nil, "", false, err
		}
		sources = append(sources, src)
	}
	for _, bk := range bv.merging {
		src, err := lq.read(bk, 8, after, want) // a staged record starts with its input index
		if err != nil {
			return nil, "", false, err
		}
		sources = append(sources, src)
	}
	var edge []byte // the least key a bucket stopped at
	for _, src := range sources {
		if !src.ended && (edge == nil || bytes.Compare(src.last, edge) < 0) {
			edge = src.last
		}
	}
	for _, src := range sources {
		for _, bd := range src.found {
			if edge == nil || bd.Key <= string(edge) {
				matches = append(matches, bd)
			}
		}
	}
	if len(sources) > 1 {
		slices.SortFunc(matches, func(a, b *store.Binding) int { return strings.Compare(a.Key, b.Key) })
	}
	return matches, string(edge), edge == nil, nil
}

// seek places c at the first key of the range after after, under
// bucketStates' state byte when st is not 0.
func (lq *listQuery) seek(c *bolt.Cursor, st byte, after string) ([]byte, []byte) {
	start, skip := lq.prefix, []byte(nil)
	if after != "" && after >= lq.Prefix {
		start, skip = []byte(after), []byte(after)
	}
	if st != 0 {
		start = append([]byte{st}, start...)
		if skip != nil {
			skip = append([]byte{st}, skip...)
		}
	}
	k, v := c.Seek(start)
	if skip != nil && bytes.Equal(k, skip) {
		k, v = c.Next()
	}
	return k, v
}

// read reads bk, whose values are bindings after skip bytes, from the
// range's first key after after, until want matches or listScanMax keys.
func (lq *listQuery) read(bk *bolt.Bucket, skip int, after string, want int) (*source, error) {
	src := new(source)
	c := bk.Cursor()
	k, v := lq.seek(c, 0, after)
	for n := 0; ; k, v = c.Next() {
		if k == nil || !bytes.HasPrefix(k, lq.prefix) {
			src.ended = true
			return src, nil
		}
		if n == listScanMax || len(src.found) == want {
			return src, nil
		}
		n++
		src.last = bytes.Clone(k)
		bd, err := lq.match(k, v[skip:])
		if err != nil {
			return nil, err
		}
		if bd != nil {
			src.found = append(src.found, bd)
		}
	}
}

// readIndex reads the keys of lq's state from states, and their
// bindings from bindings, as read does.
func (lq *listQuery) readIndex(states, bindings *bolt.Bucket, after string, want int) (*source, error) {
	src := new(source)
	st := stateByte(lq.State)
	c := states.Cursor()
	k, _ := lq.seek(c, st, after)
	for n := 0; ; k, _ = c.Next() {
		if k == nil || k[0] != st || !bytes.HasPrefix(k[1:], lq.prefix) {
			src.ended = true
			return src, nil
		}
		if n == listScanMax || len(src.found) == want {
			return src, nil
		}
		n++
		src.last = bytes.Clone(k[1:])
		v := bindings.Get(k[1:])
		if v == nil {
			return nil, errStateIndex
		}
		bd, err := lq.match(k[1:], v)
		if err != nil {
			return nil, err
		}
		if bd != nil {
			src.found = append(src.found, bd)
		}
	}
}

// match returns the binding v of key when lq matches it, else nil.
func (lq *listQuery) match(key, v []byte) (*store.Binding, error) {
	if lq.text != nil && !bytes.Contains(bytes.ToLower(v), lq.text) {
		return nil, nil
	}
	bd, err := decodeBinding(string(key), v)
	if err != nil || !lq.Matches(bd) {
		return nil, err
	}
	return bd, nil
}

// errStateIndex is a state index naming a key without a binding.
var errStateIndex = errors.New("the state index names a key that has no binding: the file is damaged")

// Interface guard.
var _ store.Lister = (*Store)(nil)
