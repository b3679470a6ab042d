package table

import (
	"fmt"
	"iter"
	"slices"
)

// Table is what a resolver reads assignments from: a table built in
// the heap from JSON files and inline entries (table), or a compiled file
// mapped read-only (compiledTable), possibly with inline entries on top
// (layeredTable). Every form is immutable once built, so any number of
// requests may read it at once.
type Table interface {
	// Lookup returns the assignment of a normalized key, or Unreadable
	// when the table cannot read it (a damaged compiled file).
	Lookup(key string) (*Assignment, bool)
	// LookupIn is Lookup for a caller that gives room for the assignment
	// (the answer path, which allocates one room per answer): it fills
	// room and returns it, or returns Unreadable as Lookup does, and
	// leaves room alone for a key the table does not hold. A compiled
	// table still copies the target out of its mapping, which is unmapped
	// when a reload replaces it: the target must outlive that.
	LookupIn(key string, room *Assignment) (*Assignment, bool)
	// Len returns the number of distinct keys.
	Len() int
	// NAANs returns the NAANs of the table's ARKs, sorted.
	NAANs() []string
	// All yields every key with its assignment, in the order the entries
	// were written.
	All() iter.Seq2[string, *Assignment]
	// From yields the keys with their assignments from the nth (0-based)
	// in All's order on: a reader that goes through the table a page at
	// a time resumes where it stopped without reading what it passed.
	From(n int) iter.Seq2[string, *Assignment]
	// SourceOf reports whether the table assigns key, and where: the
	// file (and entry) or the Caddyfile map.
	SourceOf(key string) (string, bool)
}

// NAANs implements entryTable.
func (t *heapTable) NAANs() []string {
	naans := make([]string, 0, len(t.naans))
	for n := range t.naans {
		naans = append(naans, n)
	}
	slices.Sort(naans)
	return naans
}

// All implements entryTable.
func (t *heapTable) All() iter.Seq2[string, *Assignment] {
	return func(yield func(string, *Assignment) bool) {
		for i := range t.records {
			r := &t.records[i]
			if !yield(t.arena.str(r.key, int(r.keyLen)), t.assignment(i)) {
				return
			}
		}
	}
}

// From implements entryTable.
func (t *heapTable) From(n int) iter.Seq2[string, *Assignment] {
	return func(yield func(string, *Assignment) bool) {
		for i := max(n, 0); i < len(t.records); i++ {
			r := &t.records[i]
			if !yield(t.arena.str(r.key, int(r.keyLen)), t.assignment(i)) {
				return
			}
		}
	}
}

// Open opens a handler's table: its JSON table files and inline
// entries, indexed in the heap; or its one compiled table file, mapped,
// with the inline entries on top. A compiled file is recognized by its
// magic. With verify, a compiled file's checksum is checked at open.
func Open(files []string, inline []Entry, verify bool) (Table, error) {
	compiled := -1
	for i, path := range files {
		ok, err := IsCompiled(path)
		if err != nil {
			return nil, err
		}
		if ok {
			compiled = i
			break
		}
	}
	if compiled < 0 {
		return load(files, inline)
	}
	if len(files) > 1 {
		return nil, fmt.Errorf("%s: a compiled table must be the only table file of a handler: compile all the files together (caddy ark compile <files...> -o <file>)", files[compiled])
	}
	ct, err := OpenCompiled(files[0], verify)
	if err != nil || len(inline) == 0 {
		return ct, err
	}
	return newLayeredTable(ct, inline)
}

// layeredTable is a compiled table with a handler's inline entries on
// top, in the heap. An inline entry may repeat one of the compiled table
// with the same assignment, not assign it differently.
type layeredTable struct {
	base   *Compiled
	inline *heapTable
	dups   int // inline keys that are in base too
}

// newLayeredTable checks inline against base and puts it on top.
func newLayeredTable(base *Compiled, inline []Entry) (*layeredTable, error) {
	top, err := load(nil, inline)
	if err != nil {
		return nil, err
	}
	l := &layeredTable{base: base, inline: top}
	for i := range inline {
		key, _, a, _ := inline[i].Compile() // loadTable checked it
		prev, ok := base.Lookup(key)
		switch {
		case !ok:
		case SameAssignment(prev, &a):
			l.dups++
		default:
			return nil, &LoadError{Entry: i, Source: inline[i].Source,
				Err: fmt.Errorf("id %q is %s, already assigned by %s with a different %s: equivalent identifiers cannot be assigned twice",
					inline[i].ID, key, base.path, difference(prev, &a))}
		}
	}
	return l, nil
}

// Lookup implements entryTable.
func (l *layeredTable) Lookup(key string) (*Assignment, bool) {
	if a, ok := l.inline.Lookup(key); ok {
		return a, true
	}
	return l.base.Lookup(key)
}

// LookupIn implements Table.
func (l *layeredTable) LookupIn(key string, room *Assignment) (*Assignment, bool) {
	if a, ok := l.inline.LookupIn(key, room); ok {
		return a, true
	}
	return l.base.LookupIn(key, room)
}

// SourceOf implements entryTable.
func (l *layeredTable) SourceOf(key string) (string, bool) {
	if source, ok := l.inline.SourceOf(key); ok {
		return source, true
	}
	return l.base.SourceOf(key)
}

// Len implements entryTable.
func (l *layeredTable) Len() int { return l.base.Len() + l.inline.Len() - l.dups }

// NAANs implements entryTable.
func (l *layeredTable) NAANs() []string {
	naans := append(l.base.NAANs(), l.inline.NAANs()...)
	slices.Sort(naans)
	return slices.Compact(naans)
}

// From implements entryTable: the compiled entries from the nth on, then
// the inline ones it does not hold, which are few.
func (l *layeredTable) From(n int) iter.Seq2[string, *Assignment] {
	return func(yield func(string, *Assignment) bool) {
		for k, a := range l.base.From(n) {
			if !yield(k, a) {
				return
			}
		}
		i := l.base.Len()
		for k, a := range l.inline.All() {
			if _, dup := l.base.Lookup(k); dup {
				continue
			}
			if i++; i > n && !yield(k, a) {
				return
			}
		}
	}
}

// All implements entryTable: the compiled entries, then the inline ones
// it does not hold.
func (l *layeredTable) All() iter.Seq2[string, *Assignment] {
	return func(yield func(string, *Assignment) bool) {
		for k, a := range l.base.All() {
			if !yield(k, a) {
				return
			}
		}
		for k, a := range l.inline.All() {
			if _, dup := l.base.Lookup(k); !dup && !yield(k, a) {
				return
			}
		}
	}
}
