package table

import (
	"errors"
	"fmt"
	"hash/maphash"
	"maps"
	"os"
	"sort"
	"strings"

	"github.com/caddy-ark/caddy-ark/internal/osfile"
)

// heapTable maps identifier keys to assignments. It is built once and never
// changed, so any number of requests may read it at once. It is laid out
// for millions of entries: 16-byte records, keys and targets packed in an
// arena, and an open-addressing index of 8-byte slots.
type heapTable struct {
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

// Source names where a run of entries came from, for error messages.
type source struct {
	name    string // file path, or "entries" for the handler's own
	first   int    // position in records of its first entry
	skipped []int  // indexes in the source of exact duplicates, which have no record
	// lines holds the input line of each entry of a line-based source
	// (caddy ark import), so that errors name the line; nil otherwise.
	lines []int32
}

func newTable(sizeHint int) *heapTable {
	n := 16
	for n*3 < sizeHint*4 {
		n *= 2
	}
	return &heapTable{
		records: make([]record, 0, sizeHint),
		slots:   make([]uint64, n),
		seed:    maphash.MakeSeed(),
		metas:   make([]map[string]string, 1),
		naans:   map[string]struct{}{},
	}
}

// find returns the position of key's record.
func (t *heapTable) find(key string, hash uint64) (int, bool) {
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

// Lookup returns the assignment of key.
func (t *heapTable) Lookup(key string) (*Assignment, bool) {
	i, ok := t.find(key, maphash.String(t.seed, key))
	if !ok {
		return nil, false
	}
	return t.assignment(i), true
}

// LookupIn implements Table: the assignment's strings and metadata are
// the table's own, so filling room allocates nothing.
func (t *heapTable) LookupIn(key string, room *Assignment) (*Assignment, bool) {
	i, ok := t.find(key, maphash.String(t.seed, key))
	if !ok {
		return nil, false
	}
	t.unpack(i, room)
	return room, true
}

// assignment unpacks the record at position i into an allocation of its
// own.
func (t *heapTable) assignment(i int) *Assignment {
	a := new(Assignment)
	t.unpack(i, a)
	return a
}

// unpack puts the record at position i in a.
func (t *heapTable) unpack(i int, a *Assignment) {
	r := &t.records[i]
	*a = Assignment{
		Target:      t.arena.str(r.key+uint32(r.keyLen), int(r.targetLen)),
		Status:      int(r.status),
		Passthrough: r.passthrough,
		Meta:        t.metas[r.meta],
	}
}

// sourceOf names where key is assigned, if it is: see describe.
func (t *heapTable) SourceOf(key string) (string, bool) {
	i, ok := t.find(key, maphash.String(t.seed, key))
	if !ok {
		return "", false
	}
	return t.describe(i), true
}

// Len returns the number of distinct keys.
func (t *heapTable) Len() int { return len(t.records) }

// insert adds key with a at slot, the empty slot find returned for key.
func (t *heapTable) insert(key string, slot int, hash uint64, a Assignment) error {
	if len(key) > maxEntryString || len(a.Target) > maxEntryString {
		return errors.New("id or target longer than 65535 bytes")
	}
	if len(t.records) == 1<<32-2 {
		return errors.New("too many entries")
	}
	off, ok := t.arena.add(key, a.Target)
	if !ok {
		return errors.New("the table's keys and targets exceed 4 GiB")
	}
	r := record{key: off, keyLen: uint16(len(key)), targetLen: uint16(len(a.Target)), status: uint16(a.Status), passthrough: a.Passthrough}
	if a.Meta != nil {
		r.meta = uint32(len(t.metas))
		t.metas = append(t.metas, a.Meta)
	}
	t.records = append(t.records, r)
	t.slots[slot] = hash>>32<<32 | uint64(len(t.records))
	return nil
}

// grow doubles the index when one more record would fill it past 3/4,
// placing every slot again by its stored hash.
func (t *heapTable) grow() {
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

// Builder accumulates entries, refusing bad ones and conflicts.
type Builder struct {
	t *heapTable
}

// NewBuilder returns a builder of an in-memory table sized for about
// sizeHint entries.
func NewBuilder(sizeHint int) *Builder {
	return &Builder{t: newTable(sizeHint)}
}

// StartSource begins a run of entries from name.
func (b *Builder) StartSource(name string) {
	b.t.sources = append(b.t.sources, source{name: name, first: len(b.t.records)})
}

// StartLinedSource starts a source whose entries are read one a line (an
// import's rows), so that errors name an entry by its line; addLine adds
// them.
func (b *Builder) StartLinedSource(name string) {
	b.StartSource(name)
	b.t.sources[len(b.t.sources)-1].lines = []int32{}
}

// AddLine adds e, read at line of a source started by startLinedSource,
// and returns its normalized key, or dup when an equivalent identifier is
// there already with the same assignment.
func (b *Builder) AddLine(e *Entry, line int) (key string, dup bool, err error) {
	before := b.t.Len()
	if err := b.Add(e); err != nil {
		return "", false, err
	}
	src := &b.t.sources[len(b.t.sources)-1]
	src.lines = append(src.lines, int32(line))
	if b.t.Len() == before {
		return "", true, nil
	}
	r := &b.t.records[before]
	return b.t.arena.str(r.key, int(r.keyLen)), false, nil
}

// Add compiles e and adds it. An equivalent identifier that is already
// there with the same assignment is skipped; one with a different
// assignment is an error naming both entries.
func (b *Builder) Add(e *Entry) error {
	key, naan, a, err := e.Compile()
	if err != nil {
		return err
	}
	hash := maphash.String(b.t.seed, key)
	b.t.grow()
	i, ok := b.t.find(key, hash)
	if ok {
		prev := b.t.assignment(i)
		if SameAssignment(prev, &a) {
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
func (t *heapTable) describe(i int) string {
	src, entry, single := t.locate(i)
	switch {
	case src.lines != nil:
		return fmt.Sprintf("%s:%d", src.name, src.lines[entry])
	case single:
		return src.name
	}
	return fmt.Sprintf("%s entry %d", src.name, entry)
}

// locate returns the source of the record at position i, the entry's index
// in that source, and whether it is the source's only entry.
func (t *heapTable) locate(i int) (src *source, entry int, single bool) {
	s := sort.Search(len(t.sources), func(j int) bool { return t.sources[j].first > i }) - 1
	next := len(t.records)
	if s+1 < len(t.sources) {
		next = t.sources[s+1].first
	}
	src = &t.sources[s]
	entry = i - src.first
	for _, skipped := range src.skipped {
		if skipped <= entry {
			entry++
		}
	}
	return src, entry, next-src.first == 1 && len(src.skipped) == 0 && src.name != "entries"
}

// where names the entry that assigns key as a load error names one: a
// table file's entry by the file, the line it ends on and its index (the
// file is read again to find the line: this is for error messages only),
// anything else as SourceOf does.
func (t *heapTable) where(key string) (string, bool) {
	i, ok := t.find(key, maphash.String(t.seed, key))
	if !ok {
		return "", false
	}
	src, entry, _ := t.locate(i)
	if src.lines == nil && src.name != "entries" && !strings.HasPrefix(src.name, inlineSourcePrefix) {
		if line, err := entryLine(src.name, entry); err == nil {
			return fmt.Sprintf("%s:%d: entry %d", src.name, line, entry), true
		}
	}
	return t.describe(i), true
}

// entryLine returns the line that entry n of the table file at path ends
// on, reading the file again.
func entryLine(path string, n int) (int, error) {
	f, err := osfile.OpenRegular(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	tr := NewReader(f)
	errFound := errors.New("found")
	i := 0
	_, err = tr.Each(func(*Entry) error {
		if i == n {
			return errFound
		}
		i++
		return nil
	})
	if err != errFound {
		return 0, fmt.Errorf("%s has no entry %d", path, n)
	}
	return tr.Line, nil
}

// Where names the entry of t that assigns key, for an error that must
// point the operator at it: "file:line: entry n" for an entry of a table
// file, the Caddyfile line of a map, the file of a compiled table.
func Where(t Table, key string) (string, bool) {
	switch t := t.(type) {
	case *heapTable:
		return t.where(key)
	case *layeredTable:
		if w, ok := t.inline.where(key); ok {
			return w, true
		}
	}
	return t.SourceOf(key)
}

// SameAssignment reports whether a and b assign the same: target, status,
// passthrough and metadata.
func SameAssignment(a, b *Assignment) bool {
	return a.Target == b.Target && a.Status == b.Status && a.Passthrough == b.Passthrough && maps.Equal(a.Meta, b.Meta)
}

func difference(a, b *Assignment) string {
	switch {
	case a.Target != b.Target:
		return fmt.Sprintf("target (%q, not %q)", a.Target, b.Target)
	case a.Status != b.Status:
		return fmt.Sprintf("status (%d, not %d)", a.Status, b.Status)
	case a.Passthrough != b.Passthrough:
		return "passthrough"
	}
	return "meta"
}

// loadFile streams the table file at path into b. Errors name the file,
// the line and the entry.
func (b *Builder) loadFile(path string) error {
	f, err := osfile.OpenRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	b.StartSource(path)
	tr := NewReader(f)
	entry, err := tr.Each(b.Add)
	if err == nil {
		return nil
	}
	return &LoadError{File: path, Line: tr.Line, Entry: entry, Err: err}
}

// SourceName names the handler's own entry e in errors.
func (e *Entry) SourceName() string {
	return inlineSourcePrefix + e.Source
}

// inlineSourcePrefix starts the source name of an inline entry whose
// Caddyfile line is known.
const inlineSourcePrefix = "the map at "

// bytesPerEntry estimates a table file's size per entry, to size the index
// before reading it.
const bytesPerEntry = 80

// LoadError is an entry, or a part of a table file outside the entries,
// that failed to load: where it is, and why.
type LoadError struct {
	File  string // the table file; "" for the handler's own entries
	Line  int    // 1-based line in file
	Entry int    // index of the entry at fault; -1 when outside the entries
	// where the handler's own entry was written (Entry.Source), if known
	Source string
	Err    error
}

func (e *LoadError) Error() string {
	switch {
	case e.File == "" && e.Source != "":
		return fmt.Sprintf("the map at %s: %v", e.Source, e.Err)
	case e.File == "":
		return fmt.Sprintf("entries[%d]: %v", e.Entry, e.Err)
	case e.Entry < 0:
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s:%d: entry %d: %v", e.File, e.Line, e.Entry, e.Err)
}

func (e *LoadError) Unwrap() error { return e.Err }

// Load builds a table in memory from table files (JSON) and inline
// entries, in that order.
func Load(files []string, inline []Entry) (Table, error) {
	t, err := load(files, inline)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// LoadCounted is Load without inline entries, and also returns how many
// identifiers each file added, in the order of files: an identifier that an
// earlier file assigned the same way counts for that one only.
func LoadCounted(files []string) (Table, []int, error) {
	t, err := load(files, nil)
	if err != nil {
		return nil, nil, err
	}
	counts := make([]int, len(files))
	for i := range files {
		next := t.Len()
		if i+1 < len(t.sources) {
			next = t.sources[i+1].first
		}
		counts[i] = next - t.sources[i].first
	}
	return t, counts, nil
}

// load builds the in-memory table of Load.
func load(files []string, inline []Entry) (*heapTable, error) {
	hint := len(inline)
	for _, path := range files {
		if fi, err := os.Stat(path); err == nil {
			hint += int(fi.Size() / bytesPerEntry)
		}
	}
	b := NewBuilder(hint)
	for _, path := range files {
		if err := b.loadFile(path); err != nil {
			return nil, err
		}
	}
	b.StartSource("entries")
	for i := range inline {
		if inline[i].Source != "" {
			b.StartSource(inline[i].SourceName())
		}
		if err := b.Add(&inline[i]); err != nil {
			return nil, &LoadError{Entry: i, Source: inline[i].Source, Err: err}
		}
	}
	return b.t, nil
}
