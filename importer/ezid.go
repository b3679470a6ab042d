package importer

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/ezid/anvl"
	"github.com/caddy-ark/caddy-ark/ezid/download"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// EZID's batch downloads (the API document's "Batch download") are read
// as records of EZID elements, each made a binding by the ezid package's
// mapping (Options.EZIDBinding, ezid.ImportBinding: an import of EZID's
// own records, so _created, _updated and _ownergroup are kept, and a new
// identifier may be reserved or unavailable). The importer does not
// import the ezid package, which serves EZID's API on the api package. A reserved identifier stays reserved in a
// store (Status 0, never resolved, never minted again); a table, which
// has no reserved state, leaves it out and counts it.

// readEZIDANVL reads EZID's ANVL download: blocks of a ":: <identifier>"
// header line and the identifier's elements.
func readEZIDANVL(r io.Reader, row func(sourceRow)) error {
	rs := anvl.NewRecords(r)
	for rs.Next() {
		rec := rs.Record()
		row(ezidRow(&rec))
	}
	if err := rs.Err(); err != nil {
		// The reader names the line first: "line 12: no colon in line".
		var line int
		msg := err.Error()
		if _, serr := fmt.Sscanf(msg, "line %d:", &line); serr == nil {
			_, msg, _ = strings.Cut(msg, ": ")
		}
		row(sourceRow{line: line, err: errors.New(msg)})
	}
	return nil
}

// readEZIDXML reads EZID's XML download.
func readEZIDXML(r io.Reader, row func(sourceRow)) error {
	err := download.ReadXML(r, func(rec *anvl.Record) error {
		row(ezidRow(rec))
		return nil
	})
	if se := (*download.SyntaxError)(nil); errors.As(err, &se) {
		row(sourceRow{line: se.Line, err: se.Err})
		return nil
	}
	return err
}

// ezidRow makes the row of one EZID record: its elements, which take
// makes a binding with Options.EZIDBinding. _created and _updated in ISO
// 8601 (a download with convertTimestamps=yes) are read as the Unix
// seconds EZID keeps.
func ezidRow(rec *anvl.Record) sourceRow {
	r := sourceRow{line: rec.Line, id: rec.ID}
	elems := make([]anvl.Element, 0, len(rec.Elements))
	for _, e := range rec.Elements {
		if (e.Name == "_created" || e.Name == "_updated") && e.Value != "" {
			secs, err := unixSeconds(e.Value)
			if err != nil {
				r.err = fmt.Errorf("%s: %s %q: %v", rec.ID, e.Name, e.Value, err)
				return r
			}
			e.Value = secs
		}
		elems = append(elems, e)
	}
	r.ezidElements = elems
	return r
}

// unixSeconds reads a time of EZID's download as Unix seconds: seconds
// since 1970 as they are, an ISO 8601 date-time or date in UTC converted.
func unixSeconds(s string) (string, error) {
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return s, nil
	}
	for _, layout := range []string{time.RFC3339Nano, time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return strconv.FormatInt(t.Unix(), 10), nil
		}
	}
	return "", fmt.Errorf("neither seconds since 1970 nor an ISO 8601 date-time (2024-05-01T10:20:30Z)")
}

// skipReserved is why a table leaves out an EZID reserved identifier.
const skipReserved = "reserved in EZID: a table has no reserved state; import into a store to keep it"

// takeEZID imports the row of an EZID record. In a table, a reserved
// identifier is left out and counted, and an unavailable one is withdrawn
// (410) with its reason, the table's tombstone; in a store both are kept
// as the ezid package maps them. The entry checked is what a table would
// hold: a reserved identifier is checked as a withdrawn one (it has no
// answer yet), so that its identifier, and a conflict with an equivalent
// one, are refused as in a table.
func (im *importer) takeEZID(row sourceRow) {
	if im.ezidBinding == nil {
		im.problem(row.line, errors.New("EZID's records cannot be read here: no mapping of EZID's elements was given"))
		return
	}
	b, err := im.ezidBinding(row.id, row.ezidElements)
	if err != nil {
		im.problem(row.line, fmt.Errorf("%s: %v", row.id, err))
		return
	}
	e := table.Entry{ID: importID(row.id), Target: b.Target, Status: b.Status, Meta: b.Meta}
	if !b.Passthrough {
		e.Passthrough = new(bool)
	}
	switch reason, unavailable := b.Unavailable(); {
	case b.Status == 0 && im.sink == nil:
		im.skipped[skipReserved]++
		if im.verbose {
			fmt.Fprintf(im.errOut, "%s:%d: skipped: %s: %s\n", im.name, row.line, row.id, skipReserved)
		}
		return
	case b.Status == 0:
		e.Status, e.Target = http.StatusGone, ""
	case unavailable && im.sink == nil:
		e.Status, e.Target = http.StatusGone, ""
		e.Meta = maps.Clone(b.Meta)
		delete(e.Meta, store.StatusMeta)
		if reason != "" {
			e.Meta[table.ReasonMeta] = reason
		}
	}
	im.add(row, &e, b)
}

// toSink gives the sink the binding of an entry checked and added under
// key: an EZID record's own binding, else the entry's (Binding).
func (im *importer) toSink(row sourceRow, e *table.Entry, b *store.Binding, key string) {
	if b == nil {
		var err error
		if b, err = Binding(e); err != nil {
			im.problem(row.line, err)
			return
		}
	} else {
		nb := *b
		b = &nb
	}
	b.Key = key
	if b.Status == 0 {
		im.reserved++
	}
	if im.sink(b) != nil {
		return // Bindings returns the error
	}
	im.written++
}

// ezidCSVHeader returns the layout of EZID's CSV download, whose header
// row names an _id column and elements: every column is kept, as the
// element it names, but the _mapped columns, which EZID computes from
// the others (noted).
func ezidCSVHeader(rec []string) (l delimitedLayout, note string, err error) {
	l = delimitedLayout{id: -1, target: -1, status: -1, ezidStatus: -1, names: slices.Clone(rec), header: true, fields: len(rec), ezid: true}
	seen := map[string]int{}
	var derived []string
	for i, name := range rec {
		name = strings.TrimSpace(name)
		l.names[i] = name
		if j, dup := seen[name]; dup {
			return l, "", fmt.Errorf("the header row names %q twice (columns %d and %d); keep one of them", name, j+1, i+1)
		}
		seen[name] = i
		switch {
		case name == "_id":
			l.id = i
		case strings.HasPrefix(name, "_mapped"):
			derived = append(derived, strconv.Quote(name))
		case name == "":
			return l, "", fmt.Errorf("column %d of the header row has no name", i+1)
		}
	}
	if len(derived) > 0 {
		note = "header row; columns left out (EZID computes them from the others): " + strings.Join(derived, ", ")
	}
	return l, note, nil
}

// ezidCSVRow makes the row of a record of EZID's CSV download: its
// non-empty fields are the record's elements.
func (l *delimitedLayout) ezidCSVRow(line int, rec []string) sourceRow {
	r := anvl.Record{ID: strings.TrimSpace(rec[l.id]), Line: line}
	for i, v := range rec {
		name := l.names[i]
		if v = strings.TrimSpace(v); v == "" || i == l.id || strings.HasPrefix(name, "_mapped") {
			continue
		}
		r.Elements = append(r.Elements, anvl.Element{Name: name, Value: v})
	}
	return ezidRow(&r)
}
