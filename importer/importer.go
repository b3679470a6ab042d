package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/caddy-ark/caddy-ark/ezid/anvl"
	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// MaxLineBytes bounds one line of input: a line of a source, a word or
// quoted string of an nginx map, and a line of `caddy ark normalize` input;
// identifiers are far shorter.
const MaxLineBytes = 1 << 20

// sourceRow is one line of an import source: an assignment, a line that is
// refused (err), or one that is left out on purpose (skip).
type sourceRow struct {
	line   int // 1-based line of the input where the row starts
	id     string
	target string
	status string // as written; "" for the default
	// passthrough as written (nil for the default), and the metadata:
	// nil for none, empty when the source wrote an empty object.
	passthrough *bool
	meta        map[string]string
	// ezidElements are the elements of an EZID record (see ezidRow),
	// which stand for the fields above.
	ezidElements []anvl.Element
	err          error  // why the line cannot be imported
	skip         string // why the line is left out, when that is not an error: a kind, counted in the summary
	note         string // something to tell about the line, which is not a row
}

// format reads rows from r, calling row for each. It returns an error
// only when it cannot read on (I/O, or input it cannot get past); bad lines
// are rows with err set, and it goes on after them.
type format func(r io.Reader, row func(sourceRow)) error

// formats are the formats of `caddy ark import`, by name.
var formats = map[string]format{
	"csv":        func(r io.Reader, row func(sourceRow)) error { return readDelimited(r, ',', row) },
	"tsv":        func(r io.Reader, row func(sourceRow)) error { return readDelimited(r, '\t', row) },
	"rewritemap": readRewriteMap,
	"nginx":      readNginxMaps,
	"json":       readTableJSON,
	"anvl":       readEZIDANVL,
	"xml":        readEZIDXML,
}

// Options says how Convert reads a source.
type Options struct {
	Format   string // csv, tsv, rewritemap, nginx, json, anvl or xml (EZID's downloads)
	Encoding string // utf-8 (the default when empty) or latin1
	Verbose  bool   // list each line left out, not only how many
	// SkipTestARKs leaves out the ARKs under NAAN 99999, which marks test
	// and invalid ARKs (as in an EZID download), counting them, instead
	// of refusing them.
	SkipTestARKs bool
	// EZIDBinding makes the binding of an identifier of EZID's downloads
	// (the formats anvl and xml, and csv with an _id column) from its
	// elements: ezid.ImportBinding. Without it they are refused.
	EZIDBinding func(id string, elems []anvl.Element) (*store.Binding, error)
}

// Check refuses a format or an encoding that Convert does not know, with
// the ones it knows. Format "auto" passes: the command names a format
// before it converts.
func (o Options) Check() error {
	if _, ok := formats[o.Format]; !ok && o.Format != "auto" {
		return fmt.Errorf("--format must be csv, tsv, rewritemap, nginx, json, anvl, xml or auto, not %q", o.Format)
	}
	if _, ok := encodings[strings.ToLower(o.Encoding)]; !ok && o.Encoding != "" {
		return fmt.Errorf("--encoding must be utf-8 or latin1 (iso-8859-1), not %q", o.Encoding)
	}
	return nil
}

// maxImportProblems is how many problems an import reports one by one;
// the rest are counted.
const maxImportProblems = 100

// importer builds a table from rows, with the handler's own checks, and
// writes each new entry to the output as it goes.
type importer struct {
	name     string // the input, for messages
	b        *table.Builder
	out      *bufio.Writer
	buf      bytes.Buffer  // one entry, encoded
	enc      *json.Encoder // encodes into buf
	errOut   io.Writer
	verbose  bool // list each line left out
	skipTest bool // leave out ARKs under NAAN 99999
	problems int
	dups     int
	written  int            // entries written to out
	skipped  map[string]int // lines left out, by why
	reserved int            // EZID's reserved identifiers given to sink
	// sink, when set, takes each binding in place of out (an import
	// into a store): EZID's reserved identifiers are kept.
	sink func(*store.Binding) error
	// ezidBinding is Options.EZIDBinding.
	ezidBinding func(id string, elems []anvl.Element) (*store.Binding, error)
}

func newImporter(name string, out, errOut io.Writer, opts Options) *importer {
	im := &importer{name: name, b: table.NewBuilder(0), out: bufio.NewWriter(out), errOut: errOut, verbose: opts.Verbose, skipTest: opts.SkipTestARKs, skipped: map[string]int{}, ezidBinding: opts.EZIDBinding}
	im.b.StartLinedSource(name)
	im.enc = json.NewEncoder(&im.buf)
	im.enc.SetEscapeHTML(false)
	return im
}

// problem reports a line that cannot be imported.
func (im *importer) problem(line int, err error) {
	im.problems++
	if im.problems <= maxImportProblems {
		fmt.Fprintf(im.errOut, "%s:%d: %v\n", im.name, line, err)
	}
}

// take imports one row: it compiles the entry exactly as a table loader
// would, refuses it with the loader's reason (a conflict names the line of
// the earlier assignment), and writes it in normal form unless it repeats
// an earlier one.
func (im *importer) take(row sourceRow) {
	switch {
	case row.err != nil:
		im.problem(row.line, row.err)
		return
	case row.note != "":
		fmt.Fprintf(im.errOut, "%s:%d: %s\n", im.name, row.line, row.note)
		return
	case im.skipTest && row.skip == "" && isTestARK(importID(row.id)):
		row.skip = "under NAAN " + normalize.InvalidNAAN + " (test ARKs)"
	}
	if row.skip != "" {
		im.skipped[row.skip]++
		if im.verbose {
			fmt.Fprintf(im.errOut, "%s:%d: skipped: %s: %s\n", im.name, row.line, row.id, row.skip)
		}
		return
	}
	if row.ezidElements != nil {
		im.takeEZID(row)
		return
	}
	e := table.Entry{ID: importID(row.id), Target: row.target, Passthrough: row.passthrough, Meta: row.meta}
	if row.status != "" {
		n, err := strconv.Atoi(row.status)
		if err != nil {
			im.problem(row.line, fmt.Errorf("status %q is not a number: use 302, 303, 307, 410, or 200 for a local path", row.status))
			return
		}
		e.Status = n
	}
	im.add(row, &e, nil)
}

// add checks e, the entry of row, as a table loader does, and writes it
// unless it repeats an earlier one, or gives its binding to the sink (b,
// for an EZID record, else e's).
func (im *importer) add(row sourceRow, e *table.Entry, b *store.Binding) {
	if err := table.CheckUntrustedInPlace(e.Target, e.Status, nil); err != nil {
		im.problem(row.line, err)
		return
	}
	var (
		key string
		dup bool
		err error
	)
	if im.sink != nil {
		// A store finds repeated and conflicting identifiers itself
		// (store.Store.Import): nothing of the source is held here, so
		// memory does not grow with its size.
		key, _, _, err = e.Compile()
	} else {
		key, dup, err = im.b.AddLine(e, row.line)
	}
	if err != nil {
		if isTestARK(e.ID) {
			err = fmt.Errorf("%w (test ARKs, as in an EZID download: --skip-test-arks leaves them out)", err)
		}
		im.problem(row.line, err)
		return
	}
	if dup {
		im.dups++
		if im.verbose {
			fmt.Fprintf(im.errOut, "%s:%d: left out: %s repeats an earlier assignment\n", im.name, row.line, row.id)
		}
		return
	}
	if im.sink != nil {
		im.toSink(row, e, b, key)
		return
	}
	im.buf.Reset()
	if err := im.enc.Encode(writtenEntry{ID: key, Target: e.Target, Status: e.Status, Passthrough: e.Passthrough, Meta: metaOf(e.Meta)}); err != nil {
		im.problem(row.line, err)
		return
	}
	if im.written > 0 {
		im.out.WriteString(",\n")
	}
	im.written++
	im.out.WriteByte('\t')
	im.out.Write(bytes.TrimSuffix(im.buf.Bytes(), []byte("\n")))
}

// writtenEntry is an entry as the importer writes it: as table.Entry
// writes itself, except that metadata the source gave empty is written
// as {}, which a compiled table keeps apart from none.
type writtenEntry struct {
	ID          string             `json:"id"`
	Target      string             `json:"target,omitempty"`
	Status      int                `json:"status,omitempty"`
	Passthrough *bool              `json:"passthrough,omitempty"`
	Meta        *map[string]string `json:"meta,omitempty"`
}

// metaOf is meta for writtenEntry: nil for none.
func metaOf(meta map[string]string) *map[string]string {
	if meta == nil {
		return nil
	}
	return &meta
}

// isTestARK reports whether id is an ARK under NAAN 99999, which marks
// test and invalid ARKs.
func isTestARK(id string) bool {
	a, err := normalize.ParseARK(id)
	return err == nil && a.NAAN() == normalize.InvalidNAAN
}

// importID returns the identifier written in a source's id column: a
// resolver's URL of an identifier (https://n2t.net/ark:/12345/x) and a
// path on a site (/ark:/12345/x, as nginx's $uri holds it) stand for the
// identifier they end with.
func importID(s string) string {
	s = strings.TrimSpace(s)
	if id, prefix := normalize.TrimResolver(s); prefix != "" {
		return id
	}
	for i := 0; strings.HasPrefix(s[i:], "/"); {
		seg := s[i+1:]
		if len(seg) >= 4 && (strings.EqualFold(seg[:4], "ark:") || strings.EqualFold(seg[:4], "urn:")) {
			return seg
		}
		next := strings.IndexByte(seg, '/')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return s
}

// Stats is what an import did.
type Stats struct {
	entries, dups int
	reserved      int            // of the entries, EZID's reserved identifiers kept reserved in a store
	skipped       map[string]int // lines left out, by why
	listed        bool           // and they were listed one by one
}

// Convert reads the source in the format and encoding opts name and
// writes the table to out. Every bad line and conflict is reported to
// errOut as "<name>:<line>: <reason>" (the first maxImportProblems of
// them), and the import fails if there was any; the closing of the table
// is then not written, so that a partial output cannot be loaded by
// mistake. Input that is not in its encoding (not UTF-8, unless it is
// read as Latin-1) is such a problem, and ends the reading. Lines left out
// on purpose are counted in the Stats, and listed to errOut when
// opts.Verbose.
func Convert(in io.Reader, name string, opts Options, out, errOut io.Writer) (Stats, error) {
	im, read, err := start(name, opts, out, errOut)
	if err != nil {
		return Stats{}, err
	}
	im.out.WriteString("{\"entries\": [\n")
	stats, err := im.run(in, read, opts)
	if err == nil {
		if stats.entries > 0 {
			im.out.WriteString("\n")
		}
		im.out.WriteString("]}\n")
	}
	if ferr := im.out.Flush(); err == nil {
		err = ferr
	}
	return stats, err
}

// Bindings reads the source as Convert does, with the same checks of each
// entry, and gives sink the binding of each, for a store, in place of
// writing a table: EZID's reserved identifiers are kept, reserved (Status
// 0). It holds no entry once given: repeated and conflicting identifiers
// are the store's to find (store.Store.Import), so memory does not grow
// with the source. An
// error of sink stops the reading and is returned; so is the failure of a
// source with problems, after sink has had some of its bindings: the
// caller's import must then keep nothing.
func Bindings(in io.Reader, name string, opts Options, errOut io.Writer, sink func(*store.Binding) error) (Stats, error) {
	im, read, err := start(name, opts, io.Discard, errOut)
	if err != nil {
		return Stats{}, err
	}
	var sinkErr error
	im.sink = func(b *store.Binding) error {
		if sinkErr == nil {
			sinkErr = sink(b)
		}
		return sinkErr
	}
	stats, err := im.run(in, read, opts)
	if sinkErr != nil {
		return stats, sinkErr
	}
	return stats, err
}

// start checks opts and makes the importer of a source.
func start(name string, opts Options, out, errOut io.Writer) (*importer, format, error) {
	if err := opts.Check(); err != nil {
		return nil, nil, err
	}
	read, ok := formats[opts.Format]
	if !ok {
		return nil, nil, fmt.Errorf("no format given for %s", name)
	}
	return newImporter(name, out, errOut, opts), read, nil
}

// run reads in with read, importing each row, and returns what it did; it
// fails when a row had a problem.
func (im *importer) run(in io.Reader, read format, opts Options) (Stats, error) {
	err := read(skipBOM(newDecoder(in, encodings[strings.ToLower(opts.Encoding)])), im.take)
	if encErr := (*EncodingError)(nil); errors.As(err, &encErr) {
		im.problem(encErr.Line, encErr)
		err = nil
	}
	if err == nil && im.problems > 0 {
		if im.problems > maxImportProblems {
			fmt.Fprintf(im.errOut, "%s: %d more problems not shown\n", im.name, im.problems-maxImportProblems)
		}
		err = fmt.Errorf("%s: %s: the table was not completed", im.name, count(im.problems, "problem"))
	}
	return Stats{entries: im.written, dups: im.dups, skipped: im.skipped, reserved: im.reserved, listed: opts.Verbose}, err
}

// skipBOM drops a UTF-8 byte order mark at the start of r, which
// spreadsheet exports write.
func skipBOM(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && string(b) == "\uFEFF" {
		br.Discard(3)
	}
	return br
}

// String summarises the conversion for the command's output.
func (s Stats) String() string {
	msg := count(s.entries, "identifier")
	if s.reserved > 0 {
		msg += fmt.Sprintf(" (%d reserved in EZID, kept reserved: not resolved, never minted again)", s.reserved)
	}
	if s.dups > 0 {
		msg += fmt.Sprintf(" (%s repeating an earlier one left out)", count(s.dups, "line"))
	}
	if len(s.skipped) > 0 {
		total, why := 0, make([]string, 0, len(s.skipped))
		for reason, n := range s.skipped {
			total += n
			why = append(why, fmt.Sprintf("%d %s", n, reason))
		}
		slices.Sort(why)
		msg += fmt.Sprintf(", %s skipped (%s", count(total, "line"), strings.Join(why, "; "))
		if !s.listed {
			msg += "; --verbose lists them"
		}
		msg += ")"
	}
	return msg
}

// Guess picks the format from the file name's extension (a ".gz" after
// it left out), else from the first line that is not blank or a comment.
// A line ending in ";" is an nginx map line, whatever the extension: the
// file a map block includes (include arks.map;) is often named .map, as
// RewriteMap files are. EZID's downloads are known by their first line
// (":: <identifier>" for ANVL, whose files are named .txt; an XML
// declaration or <records> for XML).
func Guess(path string, br *bufio.Reader) string {
	path = strings.TrimSuffix(path, ".gz")
	switch strings.ToLower(filepath.Ext(path)) {
	case ".xml":
		return "xml"
	case ".csv":
		return "csv"
	case ".tsv", ".tab":
		return "tsv"
	case ".conf", ".nginx":
		return "nginx"
	case ".json":
		return "json"
	}
	head, _ := br.Peek(64 << 10)
	text := strings.TrimPrefix(string(head), "\uFEFF")
	if strings.HasPrefix(strings.TrimSpace(text), "{") {
		return "json"
	}
	if nginxMapStart.MatchString(text) {
		return "nginx"
	}
	switch first := strings.TrimSpace(text); {
	case strings.HasPrefix(first, "::"):
		return "anvl"
	case strings.HasPrefix(first, "<?xml"), strings.HasPrefix(first, "<records"):
		return "xml"
	}
	for line := range strings.Lines(text) {
		line, _, _ = strings.Cut(line, "#")
		line = strings.TrimSpace(line)
		switch {
		case line == "":
			continue
		case strings.HasSuffix(line, ";"):
			return "nginx"
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".txt", ".map":
			return "rewritemap"
		}
		switch {
		case strings.Contains(line, "\t"):
			return "tsv"
		case strings.Contains(line, ","):
			return "csv"
		}
		return "rewritemap"
	}
	return "rewritemap"
}

// count writes n nouns, in the singular for one.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
