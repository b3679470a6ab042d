package ark

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"sort"

	"github.com/caddy-ark/caddy-ark/normalize"
)

// table maps identifier keys to assignments. It is built once and never
// changed, so any number of requests may read it at once.
type table struct {
	index       map[string]uint32 // key -> position in assignments
	assignments []assignment
	naans       map[string]struct{} // NAANs of the ARKs in the table
	sources     []source            // where each run of assignments came from
}

// source names where a run of entries came from, for error messages.
type source struct {
	name  string // file path, or "entries" for the handler's own
	first int    // position in assignments of its first entry
}

// lookup returns the assignment of key.
func (t *table) lookup(key string) (*assignment, bool) {
	i, ok := t.index[key]
	if !ok {
		return nil, false
	}
	return &t.assignments[i], true
}

// len returns the number of distinct keys.
func (t *table) len() int { return len(t.index) }

// tableBuilder accumulates entries, refusing bad ones and conflicts.
type tableBuilder struct {
	t *table
}

func newTableBuilder() *tableBuilder {
	return &tableBuilder{t: &table{index: map[string]uint32{}, naans: map[string]struct{}{}}}
}

// startSource begins a run of entries from name.
func (b *tableBuilder) startSource(name string) {
	b.t.sources = append(b.t.sources, source{name: name, first: len(b.t.assignments)})
}

// add compiles e and adds it. An equivalent identifier that is already
// there with the same assignment is skipped; one with a different
// assignment is an error naming both entries.
func (b *tableBuilder) add(e Entry) error {
	key, a, err := e.compile()
	if err != nil {
		return err
	}
	if i, ok := b.t.index[key]; ok {
		prev := &b.t.assignments[i]
		if sameAssignment(prev, &a) {
			return nil
		}
		return fmt.Errorf("id %q is %s, already assigned by %s with a different %s: equivalent identifiers cannot be assigned twice",
			e.ID, key, b.t.describe(int(i)), difference(prev, &a))
	}
	if len(b.t.assignments) == 1<<32-1 {
		return errors.New("too many entries")
	}
	b.t.index[key] = uint32(len(b.t.assignments))
	b.t.assignments = append(b.t.assignments, a)
	if id, err := normalize.ParseARK(key); err == nil {
		b.t.naans[id.NAAN()] = struct{}{}
	}
	return nil
}

// describe names the entry at position i: its source, and its index there
// when the source holds several.
func (t *table) describe(i int) string {
	s := sort.Search(len(t.sources), func(j int) bool { return t.sources[j].first > i }) - 1
	next := len(t.assignments)
	if s+1 < len(t.sources) {
		next = t.sources[s+1].first
	}
	if next-t.sources[s].first == 1 && t.sources[s].name != "entries" {
		return t.sources[s].name
	}
	return fmt.Sprintf("%s entry %d", t.sources[s].name, i-t.sources[s].first)
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
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	b.startSource(path)
	n, offset, err := b.read(bufio.NewReaderSize(f, 1<<16))
	if err == nil {
		return nil
	}
	return &loadError{file: path, line: lineAt(path, offset), entry: n, err: err}
}

// loadError is an entry, or a part of a table file outside the entries,
// that failed to load: where it is, and why.
type loadError struct {
	file  string // the table file; "" for the handler's own entries
	line  int    // 1-based line in file
	entry int    // index of the entry at fault; -1 when outside the entries
	err   error
}

func (e *loadError) Error() string {
	switch {
	case e.file == "":
		return fmt.Sprintf("entries[%d]: %v", e.entry, e.err)
	case e.entry < 0:
		return fmt.Sprintf("%s:%d: %v", e.file, e.line, e.err)
	}
	return fmt.Sprintf("%s:%d: entry %d: %v", e.file, e.line, e.entry, e.err)
}

func (e *loadError) Unwrap() error { return e.err }

// read decodes {"entries": [...]} from r, adding each entry as it comes. On
// error it returns the index of the entry at fault (-1 when the error is
// outside the entries) and the byte offset where it starts.
func (b *tableBuilder) read(r io.Reader) (entry int, offset int64, err error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := expectDelim(dec, '{'); err != nil {
		return -1, dec.InputOffset(), err
	}
	seen := false
	for dec.More() {
		at := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return -1, at, err
		}
		if tok != "entries" {
			return -1, at, fmt.Errorf("unknown field %q: a table is {\"entries\": [...]}", tok)
		}
		seen = true
		if err := expectDelim(dec, '['); err != nil {
			return -1, dec.InputOffset(), err
		}
		for i := 0; dec.More(); i++ {
			at := dec.InputOffset()
			var e Entry
			if err := dec.Decode(&e); err != nil {
				return i, at, err
			}
			if err := b.add(e); err != nil {
				return i, at, err
			}
		}
		if err := expectDelim(dec, ']'); err != nil {
			return -1, dec.InputOffset(), err
		}
	}
	if !seen {
		return -1, dec.InputOffset(), errors.New(`no "entries": a table is {"entries": [...]}`)
	}
	if err := expectDelim(dec, '}'); err != nil {
		return -1, dec.InputOffset(), err
	}
	if _, err := dec.Token(); err != io.EOF {
		return -1, dec.InputOffset(), errors.New("data after the table's closing brace")
	}
	return 0, 0, nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != want {
		return fmt.Errorf("expected %q, found %v", string(want), tok)
	}
	return nil
}

// lineAt returns the 1-based line of the first non-blank, non-comma byte at
// or after offset in the file at path: where the faulty value starts.
func lineAt(path string, offset int64) int {
	data, err := os.ReadFile(path)
	if err != nil || offset > int64(len(data)) {
		return 0
	}
	i := int(offset)
	for i < len(data) && bytes.IndexByte([]byte(" \t\r\n,:"), data[i]) >= 0 {
		i++
	}
	return 1 + bytes.Count(data[:min(i, len(data))], []byte("\n"))
}

// loadTable builds a table from files and inline entries, in that order.
func loadTable(files []string, inline []Entry) (*table, error) {
	b := newTableBuilder()
	for _, path := range files {
		if err := b.loadFile(path); err != nil {
			return nil, err
		}
	}
	b.startSource("entries")
	for i, e := range inline {
		if err := b.add(e); err != nil {
			return nil, &loadError{entry: i, err: err}
		}
	}
	return b.t, nil
}
