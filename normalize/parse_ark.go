package normalize

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// parseARK normalizes s, an Extended ARK or the request-core of an Embedded
// ARK, following NOTES.md: lenient repairs, then the draft's transformation
// of everything but the label, query and fragment.
func (p Parser) parseARK(s string) (ARK, error) {
	if a, ok := p.fastARK(s); ok {
		return a, nil
	}
	core, query, fragment := splitTail(s)
	if err := p.checkLength(core); err != nil {
		return ARK{}, err
	}
	if len(core) < 4 || (core[:4] != "ark:" && !strings.EqualFold(core[:4], "ark:")) {
		return ARK{}, refuse(ErrNotIdentifier, 0, `an ARK starts with "ark:"`)
	}
	labelEnd := 4
	if labelEnd < len(core) && core[labelEnd] == '/' {
		labelEnd++
	}
	w := arkWriter{b: builder{src: core}, naanEnd: -1}
	b := &w.b
	if core[:4] == "ark:" {
		for i := range 4 {
			b.keep(i)
		}
	} else {
		for _, c := range []byte("ark:") {
			b.byte(c)
		}
	}
	if err := w.transform(core, labelEnd); err != nil {
		return ARK{}, err
	}
	// A trailing run of structural characters is removed.
	for n := b.len(); n > 4; n-- {
		if c, _ := b.last(); !isStructural(c) {
			break
		}
		b.truncate(n - 1)
	}
	if w.naanEnd < 0 || w.naanEnd >= b.len()-1 {
		if w.naanEnd < 0 && b.len() == 4 {
			return ARK{}, refuse(ErrBadNAAN, labelEnd, "the NAAN is missing")
		}
		return ARK{}, refuse(ErrNotIdentifier, len(core), "the ARK has no Name after its NAAN (a pseudo-ARK)")
	}
	return newARK(b.String(), core[:labelEnd], query, fragment, w.naanEnd), nil
}

// newARK finishes a parsed ARK from its key before variant sorting.
func newARK(key, label, query, fragment string, naanEnd int) ARK {
	a := ARK{label: label, query: query, fragment: fragment, naanEnd: naanEnd}
	a.key, a.varStart = sortVariants(key, naanEnd)
	a.nameEnd = a.varStart
	if i := strings.IndexByte(a.key[a.naanEnd+1:a.varStart], '/'); i >= 0 {
		a.nameEnd = a.naanEnd + 1 + i
	}
	return a
}

// fastARK parses s in one pass when its core is already in normal form
// with sorted variants: the label "ark:", a lowercase alphanumeric NAAN,
// then only ARK-unreserved characters and single "/" or "." between them.
// ok is false for anything else, which the full transformation handles.
func (p Parser) fastARK(s string) (a ARK, ok bool) {
	if len(s) < 4 || s[:4] != "ark:" {
		return ARK{}, false
	}
	i := 4
	for i < len(s) && charClass[s[i]] == classNAAN {
		i++
	}
	if i == 4 || i == len(s) || s[i] != '/' {
		return ARK{}, false
	}
	a.naanEnd, a.nameEnd, a.varStart = i, -1, -1
	structural := true
	j := i + 1
scan:
	for ; j < len(s); j++ {
		switch charClass[s[j]] {
		case classNAAN, className:
			structural = false
			continue
		case classSlash:
			if a.nameEnd < 0 {
				a.nameEnd = j
			}
			a.varStart = -1
		case classDot:
			if a.varStart < 0 {
				a.varStart = j
			}
		case classTail:
			break scan
		default:
			return ARK{}, false
		}
		if structural {
			return ARK{}, false
		}
		structural = true
	}
	if structural || (p.limit() > 0 && j > p.limit()) {
		return ARK{}, false
	}
	a.key, a.label = s[:j], s[:4]
	if a.varStart < 0 {
		a.varStart = j
	} else if !sortedUnique(s[a.varStart+1 : j]) {
		return ARK{}, false
	}
	if a.nameEnd < 0 || a.nameEnd > a.varStart {
		a.nameEnd = a.varStart
	}
	if j < len(s) {
		_, a.query, a.fragment = splitTail(s[j:])
	}
	return a, true
}

// The classes of bytes that fastARK tells apart.
const (
	classOther = iota // needs the full transformation, or is refused
	classNAAN         // lowercase letters and digits: normal in a NAAN and a Name
	className         // the other ARK-unreserved characters
	classSlash        // "/"
	classDot          // "."
	classTail         // "?" and "#", which end the core
)

var charClass = func() (class [256]uint8) {
	for c := range 256 {
		switch {
		case isDigit(byte(c)) || 'a' <= c && c <= 'z':
			class[c] = classNAAN
		case isARKUnreserved(byte(c)):
			class[c] = className
		case c == '/':
			class[c] = classSlash
		case c == '.':
			class[c] = classDot
		case c == '?' || c == '#':
			class[c] = classTail
		}
	}
	return class
}()

// splitTail splits s into the part before any query or fragment, the query
// (with its "?") and the fragment (with its "#").
func splitTail(s string) (core, query, fragment string) {
	core = s
	if i := strings.IndexByte(core, '#'); i >= 0 {
		core, fragment = core[:i], core[i:]
	}
	if i := strings.IndexByte(core, '?'); i >= 0 {
		core, query = core[:i], core[i:]
	}
	return core, query, fragment
}

// checkLength refuses an identifier (without query and fragment) longer
// than the parser's limit in code points.
func (p Parser) checkLength(core string) error {
	limit := p.limit()
	if limit == 0 || len(core) <= limit {
		return nil
	}
	n := 0
	for i := range core {
		if n == limit {
			return refuse(ErrTooLong, i, "longer than "+strconv.Itoa(limit)+" characters")
		}
		n++
	}
	return nil
}

// arkWriter carries the state of one ARK transformation.
type arkWriter struct {
	b       builder
	naanEnd int    // output index of the "/" that ends the NAAN, -1 before it
	pctBuf  []byte // scratch for runs of encoded non-ASCII octets
}

func (w *arkWriter) inNAAN() bool { return w.naanEnd < 0 }

// transform writes the normalized NAAN, Name and qualifier of core[start:].
func (w *arkWriter) transform(core string, start int) error {
	for i := start; i < len(core); {
		c := core[i]
		switch {
		case c == '%':
			next, err := w.percent(core, i)
			if err != nil {
				return err
			}
			i = next
			continue
		case c == '-':
			// Hyphens are identity-inert: deleted.
		case isStructural(c):
			if err := w.structural(core, i); err != nil {
				return err
			}
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(core[i:])
			if r == utf8.RuneError && size == 1 {
				return refuse(ErrNotIdentifier, i, "invalid UTF-8")
			}
			if err := w.nonASCII(r, i); err != nil {
				return err
			}
			i += size
			continue
		case isASCIIControl(c):
			return checkRune(rune(c), i)
		case w.inNAAN():
			if !isAlnum(c) {
				return refuse(ErrBadNAAN, i, "the NAAN may hold only letters and digits, not "+strconv.QuoteRune(rune(c)))
			}
			w.naanChar(c, i)
		case isARKUnreserved(c):
			w.b.keep(i)
		default:
			return refuse(ErrNotIdentifier, i, "character "+strconv.QuoteRune(rune(c))+" is not allowed in an ARK")
		}
		i++
	}
	return nil
}

// naanChar writes a NAAN letter or digit, lowercased; i is its offset in
// the input, or -1 when it was decoded from a percent-encoding.
func (w *arkWriter) naanChar(c byte, i int) {
	switch {
	case 'A' <= c && c <= 'Z':
		w.b.byte(c + 'a' - 'A')
	case i < 0:
		w.b.byte(c)
	default:
		w.b.keep(i)
	}
}

// structural writes "/" or "." unless it would follow another structural
// character (or the label), which collapses the run to its first character.
// The first "/" ends the NAAN.
func (w *arkWriter) structural(core string, i int) error {
	last, _ := w.b.last()
	if w.inNAAN() {
		if core[i] == '.' {
			return refuse(ErrBadNAAN, i, `the NAAN may hold only letters and digits, not "."`)
		}
		if last == ':' {
			if core[i-1] != '/' && core[i-1] != ':' {
				return refuse(ErrBadNAAN, i, "the NAAN is empty")
			}
			return nil // "ark://" collapses to "ark:/"
		}
		w.naanEnd = w.b.len()
	} else if isStructural(last) {
		return nil
	}
	w.b.keep(i)
	return nil
}

// percent handles the "%XX" at core[i:], or a run of them encoding non-ASCII
// characters, and returns the offset after what it consumed.
func (w *arkWriter) percent(core string, i int) (int, error) {
	c, ok := decodePercent(core, i)
	if !ok {
		end := min(i+3, len(core))
		return 0, refuse(ErrPercentEncoding, i, strconv.Quote(core[i:end])+" is not %XX with two hex digits")
	}
	if c >= 0x80 {
		run := readPctRun(core, i, w.pctBuf[:0], true)
		w.pctBuf = run.bytes
		at := i
		for p := stripLookalikes(run.bytes); len(p) > 0; {
			r, size := utf8.DecodeRune(p)
			switch {
			case r != utf8.RuneError || size > 1:
				if err := w.nonASCII(r, at); err != nil {
					return 0, err
				}
			case w.inNAAN():
				return 0, refuse(ErrBadNAAN, at, "the NAAN may hold only ASCII letters and digits")
			default:
				w.b.pct(p[0]) // an octet that is not UTF-8 stays encoded
			}
			p = p[size:]
			at = min(at+3*size, run.end-3)
		}
		return run.end, nil
	}
	switch {
	case isASCIIControl(c):
		return 0, checkRune(rune(c), i)
	case c == '-':
		// An encoded hyphen is decoded, then deleted.
	case w.inNAAN():
		if !isAlnum(c) {
			return 0, refuse(ErrBadNAAN, i, "the NAAN may hold only letters and digits, not "+strconv.Quote(core[i:i+3]))
		}
		w.naanChar(c, -1)
	case isARKUnreserved(c):
		w.b.byte(c)
	default:
		w.b.keepPct(i, c)
	}
	return i + 3, nil
}

// nonASCII writes a non-ASCII character percent-encoded as UTF-8; hyphen
// look-alikes are deleted like hyphens.
func (w *arkWriter) nonASCII(r rune, offset int) error {
	if err := checkRune(r, offset); err != nil {
		return err
	}
	if isHyphenLookalike(r) {
		return nil
	}
	if w.inNAAN() {
		return refuse(ErrBadNAAN, offset, "the NAAN may hold only ASCII letters and digits")
	}
	var octets [utf8.UTFMax]byte
	for _, o := range octets[:utf8.EncodeRune(octets[:], r)] {
		w.b.pct(o)
	}
	return nil
}

// sortVariants sorts and deduplicates the VariantPath of key (the "."
// suffixes of its last segment) and returns the key with the index of the
// VariantPath's first ".".
func sortVariants(key string, naanEnd int) (string, int) {
	lastSeg := naanEnd + 1 + strings.LastIndexByte(key[naanEnd+1:], '/') + 1
	dot := strings.IndexByte(key[lastSeg:], '.')
	if dot < 0 {
		return key, len(key)
	}
	start := lastSeg + dot
	variants := key[start+1:]
	if sortedUnique(variants) {
		return key, start
	}
	var spans [16]string
	parts := spans[:0]
	for v := range strings.SplitSeq(variants, ".") {
		parts = append(parts, v)
	}
	slices.Sort(parts)
	parts = slices.Compact(parts)
	var sorted strings.Builder
	sorted.Grow(len(key))
	sorted.WriteString(key[:start])
	for _, v := range parts {
		sorted.WriteByte('.')
		sorted.WriteString(v)
	}
	return sorted.String(), start
}

// sortedUnique reports whether the "."-separated suffixes are in strictly
// increasing order, without allocating.
func sortedUnique(variants string) bool {
	prev := ""
	for first := true; ; first = false {
		cur, rest, more := strings.Cut(variants, ".")
		if !first && cur <= prev {
			return false
		}
		if !more {
			return true
		}
		prev, variants = cur, rest
	}
}

// stripLookalikes deletes the UTF-8 encodings of hyphen look-alikes from
// octets, in place, until none is left: deleting one can join the octets
// around it into another.
func stripLookalikes(octets []byte) []byte {
	for {
		out, deleted := octets[:0], false
		for p := octets; len(p) > 0; {
			r, size := utf8.DecodeRune(p)
			if isHyphenLookalike(r) {
				deleted = true
			} else {
				out = append(out, p[:size]...)
			}
			p = p[size:]
		}
		if !deleted {
			return out
		}
		octets = out
	}
}
