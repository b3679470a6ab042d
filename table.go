package ark

import (
	"errors"
	"fmt"
	"hash/maphash"
	"maps"
	"os"
	"sort"

	"github.com/caddy-ark/caddy-ark/internal/osfile"
)

// table maps identifier keys to assignments. It is built once and never
// changed, so any number of requests may read it at once. It is laid out
// for millions of entries: 16-byte records, keys and targets packed in an
// arena, and an open-addressing index of 8-byte slots.
type table struct {
	records []record
	arena   arena
	slots   []uint64 // high 32 bits of the key's hash, low 32 bits record index+1; 0 is empty
	seed    maphash.Seed
	metas   []map[string]string // metas[0] is unused: record.meta 0 means none
	naans   map[string]struct{} // NAANs of the ARKs in the table
	sources []source            // where each run of records came from
}

// record is one assignment, packed. Its key and target are stored one
// after the other in the arena.
type record struct {
	key         uint32 // arena offset of the key
	keyLen      uint16
	targetLen   uint16
	status      uint16
	passthrough bool
	meta        uint32 // index in metas
}

// maxEntryString is the longest key or target a table stores.
const maxEntryString = 1<<16 - 1

// source names where a run of entries came from, for error messages.
type source struct {
	name    string // file path, or "entries" for the handler's own
	first   int    // position in records of its first entry
	skipped []int  // indexes in the source of exact duplicates, which have no record
	// lines holds the input line of each entry of a line-based source
	// (caddy ark import), so that errors name the line; nil otherwise.
	lines []int32
}

func newTable(sizeHint int) *table {
	n := 16
	for n*3 < sizeHint*4 {
		n *= 2
	}
	return &table{
		records: make([]record, 0, sizeHint),
		slots:   make([]uint64, n),
		seed:    maphash.MakeSeed(),
		metas:   make([]map[string]string, 1),
		naans:   map[string]struct{}{},
	}
}

// find returns the position of key's record.
func (t *table) find(key string, hash uint64) (int, bool) {
	mask := uint64(len(t.slots) - 1)
	tag := hash >> 32
	for i := tag & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return int(i), false
		}
		if s>>32 == tag {
			r := &t.records[uint32(s)-1]
			if t.arena.str(r.key, int(r.keyLen)) == key {
				return int(uint32(s) - 1), true
			}
		}
	}
}

// lookup returns the assignment of key.
func (t *table) lookup(key string) (*assignment, bool) {
	i, ok := t.find(key, maphash.String(t.seed, key))
	if !ok {
		return nil, false
	}
	return t.assignment(i), true
}

// assignment unpacks the record at position i.
func (t *table) assignment(i int) *assignment {
	r := &t.records[i]
	return &assignment{
		target:      t.arena.str(r.key+uint32(r.keyLen), int(r.targetLen)),
		status:      int(r.status),
		passthrough: r.passthrough,
		meta:        t.metas[r.meta],
	}
}

// sourceOf names where key is assigned, if it is: see describe.
func (t *table) sourceOf(key string) (string, bool) {
	i, ok := t.find(key, maphash.String(t.seed, key))
	if !ok {
		return "", false
	}
	return t.describe(i), true
}

// len returns the number of distinct keys.
func (t *table) len() int { return len(t.records) }

// insert adds key with a at slot, the empty slot find returned for key.
func (t *table) insert(key string, slot int, hash uint64, a assignment) error {
	if len(key) > maxEntryString || len(a.target) > maxEntryString {
		return errors.New("id or target longer than 65535 bytes")
	}
	if len(t.records) == 1<<32-2 {
		return errors.New("too many entries")
	}
	off, ok := t.arena.add(key, a.target)
	if !ok {
		return errors.New("the table's keys and targets exceed 4 GiB")
	}
	r := record{key: off, keyLen: uint16(len(key)), targetLen: uint16(len(a.target)), status: uint16(a.status), passthrough: a.passthrough}
	if a.meta != nil {
		r.meta = uint32(len(t.metas))
		t.metas = append(t.metas, a.meta)
	}
	t.records = append(t.records, r)
	t.slots[slot] = hash>>32<<32 | uint64(len(t.records))
	return nil
}

// grow doubles the index when one more record would fill it past 3/4,
// placing every slot again by its stored hash.
func (t *table) grow() {
	if (len(t.records)+1)*4 <= len(t.slots)*3 {
		return
	}
	old := t.slots
	t.slots = make([]uint64, 2*len(old))
	mask := uint64(len(t.slots) - 1)
	for _, s := range old {
		if s == 0 {
			continue
		}
		i := (s >> 32) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}

// tableBuilder accumulates entries, refusing bad ones and conflicts.
type tableBuilder struct {
	t *table
}

func newTableBuilder(sizeHint int) *tableBuilder {
	return &tableBuilder{t: newTable(sizeHint)}
}

// startSource begins a run of entries from name.
func (b *tableBuilder) startSource(name string) {
	b.t.sources = append(b.t.sources, source{name: name, first: len(b.t.records)})
}

// add compiles e and adds it. An equivalent identifier that is already
// there with the same assignment is skipped; one with a different
// assignment is an error naming both entries.
func (b *tableBuilder) add(e *Entry) error {
	key, naan, a, err := e.compile()
	if err != nil {
		return err
	}
	hash := maphash.String(b.t.seed, key)
	b.t.grow()
	i, ok := b.t.find(key, hash)
	if ok {
		prev := b.t.assignment(i)
		if sameAssignment(prev, &a) {
			src := &b.t.sources[len(b.t.sources)-1]
			src.skipped = append(src.skipped, len(b.t.records)-src.first+len(src.skipped))
			return nil
		}
		return fmt.Errorf("id %q is %s, already assigned by %s with a different %s: equivalent identifiers cannot be assigned twice",
			e.ID, key, b.t.describe(i), difference(prev, &a))
	}
	if err := b.t.insert(key, i, hash, a); err != nil {
		return err
	}
	if naan != "" {
		if _, ok := b.t.naans[naan]; !ok {
			b.t.naans[naan] = struct{}{}
		}
	}
	return nil
}

// describe names the entry at position i: its source, and its index there
// when the source holds several.
func (t *table) describe(i int) string {
	s := sort.Search(len(t.sources), func(j int) bool { return t.sources[j].first > i }) - 1
	next := len(t.records)
	if s+1 < len(t.sources) {
		next = t.sources[s+1].first
	}
	src := &t.sources[s]
	entry := i - src.first
	for _, skipped := range src.skipped {
		if skipped <= entry {
			entry++
		}
	}
	switch {
	case src.lines != nil:
		return fmt.Sprintf("%s:%d", src.name, src.lines[entry])
	case next-src.first == 1 && len(src.skipped) == 0 && src.name != "entries":
		return src.name
	}
	return fmt.Sprintf("%s entry %d", src.name, entry)
}

func sameAssignment(a, b *assignment) bool {
	return a.target == b.target && a.status == b.status && a.passthrough == b.passthrough && maps.Equal(a.meta, b.meta)
}

func difference(a, b *assignment) string {
	switch {
	case a.target != b.target:
		return fmt.Sprintf("target (%q, not %q)", a.target, b.target)
	case a.status != b.status:
		return fmt.Sprintf("status (%d, not %d)", a.status, b.status)
	case a.passthrough != b.passthrough:
		return "passthrough"
	}
	return "meta"
}

// loadFile streams the table file at path into b. Errors name the file,
// the line and the entry.
func (b *tableBuilder) loadFile(path string) error {
	f, err := osfile.OpenRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	b.startSource(path)
	tr := newTableReader(f)
	entry, err := tr.each(b.add)
	if err == nil {
		return nil
	}
	return &loadError{file: path, line: tr.line, entry: entry, err: err}
}

// sourceName names the handler's own entry e in errors.
func (e *Entry) sourceName() string {
	return "the map at " + e.Source
}

// bytesPerEntry estimates a table file's size per entry, to size the index
// before reading it.
const bytesPerEntry = 80

// loadError is an entry, or a part of a table file outside the entries,
// that failed to load: where it is, and why.
type loadError struct {
	file  string // the table file; "" for the handler's own entries
	line  int    // 1-based line in file
	entry int    // index of the entry at fault; -1 when outside the entries
	// where the handler's own entry was written (Entry.Source), if known
	source string
	err    error
}

func (e *loadError) Error() string {
	switch {
	case e.file == "" && e.source != "":
		return fmt.Sprintf("the map at %s: %v", e.source, e.err)
	case e.file == "":
		return fmt.Sprintf("entries[%d]: %v", e.entry, e.err)
	case e.entry < 0:
		return fmt.Sprintf("%s:%d: %v", e.file, e.line, e.err)
	}
	return fmt.Sprintf("%s:%d: entry %d: %v", e.file, e.line, e.entry, e.err)
}

func (e *loadError) Unwrap() error { return e.err }

// loadTable builds a table from files and inline entries, in that order.
func loadTable(files []string, inline []Entry) (*table, error) {
	hint := len(inline)
	for _, path := range files {
		if fi, err := os.Stat(path); err == nil {
			hint += int(fi.Size() / bytesPerEntry)
		}
	}
	b := newTableBuilder(hint)
	for _, path := range files {
		if err := b.loadFile(path); err != nil {
			return nil, err
		}
	}
	b.startSource("entries")
	for i := range inline {
		if inline[i].Source != "" {
			b.startSource(inline[i].sourceName())
		}
		if err := b.add(&inline[i]); err != nil {
			return nil, &loadError{entry: i, source: inline[i].Source, err: err}
		}
	}
	return b.t, nil
}
