package importer

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A CSV or TSV import holds id,target[,status] rows. A header row naming
// the columns is optional; with one, the columns may come in any order and
// others may be there, as in EZID's CSV download (_id, _target, _status,
// _created, _updated, erc.who …).

// importColumns are the column names a header row may use, by role.
var importColumns = map[string]string{
	"id": "id", "identifier": "id", "ark": "id",
	"target": "target", "_target": "target", "url": "target", "location": "target",
	"status":   "status",
	"_status":  "ezid_status",
	"_created": "created",
	"_updated": "updated",
	"who":      "meta", "what": "meta", "when": "meta", "where": "meta",
	"erc.who": "meta", "erc.what": "meta", "erc.when": "meta", "erc.where": "meta",
	"persistence": "meta", "variance": "meta", "allocated": "meta", "reason": "meta",
}

// delimitedLayout says which column holds what.
type delimitedLayout struct {
	id, target, status, ezidStatus int // -1 when absent
	meta                           map[int]string
	dates                          map[int]string // EZID's _created and _updated: the meta key of each
	names                          []string       // the column names, as the header row has them
	header                         bool
	fields                         int  // how many the header row has
	headerLine                     int  // where it is
	sep                            rune // ',' or '\t'
	ezid                           bool // EZID's CSV download: every column is an element
}

// ezidDates are the meta keys of EZID's dates: _created is the allocation
// date ?info shows (as erc-support's when); _updated is kept beside it.
var ezidDates = map[string]string{"created": "allocated", "updated": "updated"}

// headerless is the layout without a header row: id,target[,status].
var headerless = delimitedLayout{id: 0, target: 1, status: 2, ezidStatus: -1}

// readDelimited reads CSV (sep ',') or TSV (sep '\t') rows.
func readDelimited(r io.Reader, sep rune, row func(sourceRow)) error {
	var layout *delimitedLayout
	// record takes one record, starting on line; false stops the reading.
	record := func(line int, rec []string) bool {
		if layout == nil {
			l, note, err := delimitedHeader(rec)
			if err != nil {
				// The rows cannot be read without their layout.
				row(sourceRow{line: line, err: err})
				return false
			}
			l.headerLine, l.sep = line, sep
			layout = &l
			if note != "" {
				row(sourceRow{line: line, note: note})
			}
			if l.header {
				return true
			}
		}
		if !blankRecord(rec) {
			row(layout.row(line, rec))
		}
		return true
	}
	if sep == '\t' {
		return readTSV(r, record)
	}
	return readCSV(r, sep, record, row)
}

// readCSV reads CSV records (RFC 4180: a field in double quotes may hold
// the separator, a quote doubled, and line breaks). A record that cannot
// be parsed is a bad row, and reading goes on after it.
func readCSV(r io.Reader, sep rune, record func(int, []string) bool, row func(sourceRow)) error {
	cr := csv.NewReader(r)
	cr.Comma = sep
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var perr *csv.ParseError
		if errors.As(err, &perr) {
			row(sourceRow{line: perr.StartLine, err: fmt.Errorf("%v (the record starting on this line; the error is on line %d)", perr.Err, perr.Line)})
			continue
		}
		if err != nil {
			return err
		}
		line, _ := cr.FieldPos(0)
		if !record(line, rec) {
			return nil
		}
	}
}

// readTSV reads TSV records as IANA's text/tab-separated-values defines
// them: one a line, its fields split at each tab. There is no quoting (a
// field cannot hold a tab or a line break), so a double quote is an
// ordinary character and can never join lines. Empty lines are skipped,
// as in CSV; a CR before the line feed is dropped.
func readTSV(r io.Reader, record func(int, []string) bool) error {
	br := bufio.NewReader(r)
	var rec []string
	for line := 1; ; line++ {
		s, err := br.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if s = strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r"); s != "" {
			rec = rec[:0]
			for f := range strings.SplitSeq(s, "\t") {
				rec = append(rec, f)
			}
			if !record(line, rec) {
				return nil
			}
		}
		if err != nil {
			return nil
		}
	}
}

// delimitedHeader works out the layout from the first row: a header row
// when its first field is not an identifier. The note names the columns
// a header row has that the import leaves out. Two columns for the same
// thing (id and _id, who and erc.who) are refused: a row could hold two
// values for it, and one would be lost.
func delimitedHeader(rec []string) (l delimitedLayout, note string, err error) {
	if looksLikeID(rec[0]) {
		return headerless, "", nil
	}
	if slices.ContainsFunc(rec, func(name string) bool { return strings.TrimSpace(name) == "_id" }) {
		return ezidCSVHeader(rec)
	}
	l = delimitedLayout{id: -1, target: -1, status: -1, ezidStatus: -1, meta: map[int]string{}, dates: map[int]string{},
		names: slices.Clone(rec), header: true, fields: len(rec)}
	var ignored []string
	taken := map[string]int{} // the column index of each role and meta key
	for i, name := range rec {
		name = strings.ToLower(strings.TrimSpace(name))
		role, ok := importColumns[name]
		if !ok {
			ignored = append(ignored, strconv.Quote(name))
			continue
		}
		what := role + " column"
		switch {
		case role == "meta":
			role = strings.TrimPrefix(name, "erc.")
			what = role + " metadata"
		case ezidDates[role] != "":
			what = ezidDates[role] + " metadata"
		}
		if j, dup := taken[what]; dup {
			return l, "", fmt.Errorf("the header row names the %s twice: %q (column %d) and %q (column %d); keep one of them", what,
				strings.TrimSpace(rec[j]), j+1, strings.TrimSpace(rec[i]), i+1)
		}
		taken[what] = i
		field := map[string]*int{"id": &l.id, "target": &l.target, "status": &l.status, "ezid_status": &l.ezidStatus}[role]
		switch {
		case field != nil:
			*field = i
		case ezidDates[role] != "":
			l.dates[i] = ezidDates[role]
		default:
			l.meta[i] = role
		}
	}
	if l.id < 0 {
		return l, "", fmt.Errorf("the first row is neither id,target[,status] nor a header row naming an id column (id, _id, identifier or ark): found %q", strings.Join(rec, ","))
	}
	if l.target < 0 && l.ezidStatus < 0 && l.status < 0 {
		return l, "", errors.New("the header row names no target column (target, _target, url or location)")
	}
	if len(ignored) > 0 {
		note = "header row; columns left out: " + strings.Join(ignored, ", ")
	}
	return l, note, nil
}

// looksLikeID reports whether a field holds an identifier, a resolver's
// URL of one or a path, rather than a column name.
func looksLikeID(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, p := range []string{"ark:", "urn:", "http://", "https://", "/"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func blankRecord(rec []string) bool {
	for _, f := range rec {
		if strings.TrimSpace(f) != "" {
			return false
		}
	}
	return true
}

// row makes the import row of one record.
func (l *delimitedLayout) row(line int, rec []string) sourceRow {
	if !l.header && (len(rec) < 2 || len(rec) > 3) {
		return sourceRow{line: line, err: fmt.Errorf("%s: expected id,target[,status], or a header row naming the columns", count(len(rec), "field"))}
	}
	// With a header row, a line has one field per column, empty ones
	// included: an extra field (a status after id,target, or a value cut
	// by a comma it does not quote) or a missing one would shift or lose
	// a value without a word.
	if l.header && len(rec) != l.fields {
		hint := "every line needs one field per column, empty ones included"
		if len(rec) > l.fields {
			hint = "name every column in the header row"
			switch l.sep {
			case ',':
				hint += `, and put a value holding a comma in double quotes ("Smith, John")`
			case '\t':
				hint += "; a TSV field cannot hold a tab"
			}
		}
		return sourceRow{line: line, err: fmt.Errorf("%s where the header row (line %d) has %s: %s", count(len(rec), "field"), l.headerLine, count(l.fields, "column"), hint)}
	}
	if l.ezid {
		return l.ezidCSVRow(line, rec)
	}
	get := func(i int) string {
		if i < 0 || i >= len(rec) {
			return ""
		}
		return strings.TrimSpace(rec[i])
	}
	r := sourceRow{line: line, id: get(l.id), target: get(l.target), status: get(l.status)}
	for i, key := range l.meta {
		if v := get(i); v != "" {
			if r.meta == nil {
				r.meta = map[string]string{}
			}
			r.meta[key] = v
		}
	}
	for i, key := range l.dates {
		v := get(i)
		if v == "" {
			continue
		}
		date, err := ezidDate(v)
		if err != nil {
			return sourceRow{line: line, err: fmt.Errorf("%s %q: %v", strings.TrimSpace(l.names[i]), v, err)}
		}
		if r.meta == nil {
			r.meta = map[string]string{}
		}
		r.meta[key] = date
	}
	if l.ezidStatus >= 0 {
		ezidStatus(&r, get(l.ezidStatus))
	}
	return r
}

// ezidStatus applies EZID's _status to a row: "public" is imported as it
// is; "reserved" (never made public, so never resolved) is left out;
// "unavailable", optionally followed by "| reason", is EZID's tombstone
// and becomes a withdrawn entry (410) with that reason.
func ezidStatus(r *sourceRow, status string) {
	state, reason, _ := strings.Cut(status, "|")
	switch strings.TrimSpace(state) {
	case "public", "":
	case "reserved":
		r.skip = "reserved in EZID, never made public"
	case "unavailable":
		r.status, r.target = "410", ""
		if reason = strings.TrimSpace(reason); reason != "" {
			if r.meta == nil {
				r.meta = map[string]string{}
			}
			r.meta["reason"] = reason
		}
	default:
		r.err = fmt.Errorf("_status %q: EZID's statuses are public, reserved and unavailable", status)
	}
}

// ezidDate reads a date of EZID's download: seconds since 1970, as EZID
// writes them by default, become an RFC 3339 date-time in UTC; an ISO 8601
// date or date-time (RFC 3339, as EZID writes them when asked to convert
// timestamps, or a date 2024-05-01 or 20240501) is kept as written. Eight
// digits are a date, not seconds of 1970.
func ezidDate(s string) (string, error) {
	if secs, err := strconv.ParseInt(s, 10, 64); err == nil && len(s) > 8 {
		return time.Unix(secs, 0).UTC().Format(time.RFC3339), nil
	}
	for _, layout := range []string{time.RFC3339Nano, time.DateOnly, "20060102"} {
		if _, err := time.Parse(layout, s); err == nil {
			return s, nil
		}
	}
	return "", errors.New("neither an ISO 8601 date or date-time (2024-05-01, 2024-05-01T10:20:30Z) nor seconds since 1970")
}
