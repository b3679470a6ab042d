package ark

import (
	"fmt"
	"iter"
	"slices"
)

// entryTable is what a resolver reads assignments from: a table built in
// the heap from JSON files and inline entries (table), or a compiled file
// mapped read-only (compiledTable), possibly with inline entries on top
// (layeredTable). Every form is immutable once built, so any number of
// requests may read it at once.
type entryTable interface {
	// lookup returns the assignment of a normalized key.
	lookup(key string) (*assignment, bool)
	// len returns the number of distinct keys.
	len() int
	// naanList returns the NAANs of the table's ARKs, sorted.
	naanList() []string
	// all yields every key with its assignment, in the order the entries
	// were written.
	all() iter.Seq2[string, *assignment]
	// sourceOf reports whether the table assigns key, and where: the
	// file (and entry) or the Caddyfile map.
	sourceOf(key string) (string, bool)
}

// naanList implements entryTable.
func (t *table) naanList() []string {
	naans := make([]string, 0, len(t.naans))
	for n := range t.naans {
		naans = append(naans, n)
	}
	slices.Sort(naans)
	return naans
}

// all implements entryTable.
func (t *table) all() iter.Seq2[string, *assignment] {
	return func(yield func(string, *assignment) bool) {
		for i := range t.records {
			r := &t.records[i]
			if !yield(t.arena.str(r.key, int(r.keyLen)), t.assignment(i)) {
				return
			}
		}
	}
}

// openTables opens a handler's table: its JSON table files and inline
// entries, indexed in the heap; or its one compiled table file, mapped,
// with the inline entries on top. A compiled file is recognized by its
// magic. With verify, a compiled file's checksum is checked at open.
func openTables(files []string, inline []Entry, verify bool) (entryTable, error) {
	compiled := -1
	for i, path := range files {
		ok, err := isCompiledTable(path)
		if err != nil {
			return nil, err
		}
		if ok {
			compiled = i
			break
		}
	}
	if compiled < 0 {
		return loadTable(files, inline)
	}
	if len(files) > 1 {
		return nil, fmt.Errorf("%s: a compiled table must be the only table file of a handler: compile all the files together (caddy ark compile <files...> -o <file>)", files[compiled])
	}
	ct, err := openCompiledTable(files[0], verify)
	if err != nil || len(inline) == 0 {
		return ct, err
	}
	return newLayeredTable(ct, inline)
}

// layeredTable is a compiled table with a handler's inline entries on
// top, in the heap. An inline entry may repeat one of the compiled table
// with the same assignment, not assign it differently.
type layeredTable struct {
	base   *compiledTable
	inline *table
	dups   int // inline keys that are in base too
}

// newLayeredTable checks inline against base and puts it on top.
func newLayeredTable(base *compiledTable, inline []Entry) (*layeredTable, error) {
	top, err := loadTable(nil, inline)
	if err != nil {
		return nil, err
	}
	l := &layeredTable{base: base, inline: top}
	for i := range inline {
		key, _, a, _ := inline[i].compile() // loadTable checked it
		prev, ok := base.lookup(key)
		switch {
		case !ok:
		case sameAssignment(prev, &a):
			l.dups++
		default:
			return nil, &loadError{entry: i, source: inline[i].Source,
				err: fmt.Errorf("id %q is %s, already assigned by %s with a different %s: equivalent identifiers cannot be assigned twice",
					inline[i].ID, key, base.path, difference(prev, &a))}
		}
	}
	return l, nil
}

// lookup implements entryTable.
func (l *layeredTable) lookup(key string) (*assignment, bool) {
	if a, ok := l.inline.lookup(key); ok {
		return a, true
	}
	return l.base.lookup(key)
}

// sourceOf implements entryTable.
func (l *layeredTable) sourceOf(key string) (string, bool) {
	if source, ok := l.inline.sourceOf(key); ok {
		return source, true
	}
	return l.base.sourceOf(key)
}

// len implements entryTable.
func (l *layeredTable) len() int { return l.base.len() + l.inline.len() - l.dups }

// naanList implements entryTable.
func (l *layeredTable) naanList() []string {
	naans := append(l.base.naanList(), l.inline.naanList()...)
	slices.Sort(naans)
	return slices.Compact(naans)
}

// all implements entryTable: the compiled entries, then the inline ones
// it does not hold.
func (l *layeredTable) all() iter.Seq2[string, *assignment] {
	return func(yield func(string, *assignment) bool) {
		for k, a := range l.base.all() {
			if !yield(k, a) {
				return
			}
		}
		for k, a := range l.inline.all() {
			if _, dup := l.base.lookup(k); !dup && !yield(k, a) {
				return
			}
		}
	}
}
