package normalize_test

import (
	"errors"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/caddy-ark/caddy-ark/normalize"
)

// Seeds: every ARK of the spec tables plus some messy inputs.
func arkSeeds() []string {
	seeds := []string{
		"ark:12345/c3700931", "ark:12345/c370-0931", "ark:/12-345/c37-009-31--",
		"ark:12345/ax20315.svg.en", "ark:12345/4бф3х1", "ark:/12345/x5wf6789",
		"ark:/12345/x5wf6789/c2/s4.pdf", "ARK:/12-345/x5-wf%366789/c%322/s4.pdf.en%2d?info#p",
		"ark:12345/x%2Fy/z.b.a.b", "ark:ABCDE/X5//c..en./?", "ark:12345/x\u2013y%e2%80%93z",
		"ark:12345/x%C3%A9.z.é??", "ark:12345/a.c.b/d.f.e", "ark:12345/x%E2%80-%93y",
		"ark:12345/x%C2-%85", "ark:12345/x%2E.%2e.-", "ark:12345/x/-/y#frag",
		"ark:12345", "ark:/x", "ark:12345/x%G1", "ark:12345/x\u202e", "ark:12345/x y",
		"ark:%41%42/x", "ark:12345/x.%c3%a9.z", "ark:12345/bcd9.a%2Fb.A.a",
	}
	for _, c := range arkKeyCases {
		seeds = append(seeds, c.in)
	}
	return seeds
}

func FuzzARK(f *testing.F) {
	for _, s := range arkSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// No panics, whatever the input.
		_, _ = normalize.ParseURN(s)
		id, perr := normalize.Parse(s)
		a, err := normalize.ParseARK(s)
		if err != nil {
			checkFuzzErr(t, "ParseARK", s, err)
			if hasARKScheme(s) && perr == nil {
				t.Fatalf("Parse(%q) succeeded but ParseARK failed: %v", s, err)
			}
			return
		}
		key, str := a.Key(), a.String()
		checkARKKeyShape(t, s, key)
		checkARKAccessors(t, s, a)
		checkAncestors(t, s, a)

		if perr != nil || id.Key() != key || id.String() != str {
			t.Fatalf("Parse(%q) = %v, %v; ParseARK gave %q", s, id, perr, str)
		}
		if k, err := normalize.Key(s); err != nil || k != key {
			t.Fatalf("Key(%q) = %q, %v; want %q", s, k, err, key)
		}
		if n, err := normalize.Normalize(s); err != nil || n != str {
			t.Fatalf("Normalize(%q) = %q, %v; want %q", s, n, err, str)
		}
		// Idempotence.
		b, err := normalize.ParseARK(key)
		if err != nil {
			t.Fatalf("ParseARK(%q) = key %q, which does not parse: %v", s, key, err)
		}
		if b.Key() != key {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, key, b.Key())
		}
		if n, err := normalize.Normalize(str); err != nil || n != str {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", s, str, n, err)
		}
		if eq, err := normalize.Equivalent(s, key); err != nil || !eq {
			t.Fatalf("Equivalent(%q, %q) = %v, %v", s, key, eq, err)
		}
		// An ARK of 255 code points or fewer is never refused for length.
		if n := utf8.RuneCountInString(s[:coreEnd(s, 0)]); n <= 255 {
			if _, err := (normalize.Parser{MaxLength: 255}).ParseARK(s); err != nil {
				t.Fatalf("Parser{MaxLength: 255}.ParseARK(%q) (%d code points): %v", s, n, err)
			}
		}
	})
}

// FuzzARKEquivalence applies identity-preserving edits chosen by sel to a
// parsing ARK (or to its key) and checks the key does not move; then two
// identity-changing edits of the key, which must move it.
func FuzzARKEquivalence(f *testing.F) {
	sels := []uint64{0, 1, 0x5a5a5a5a5a5a5a5a, 0xffffffffffffffff, 0x123456789abcdef0, 0x0f1e2d3c4b5a6978}
	for i, s := range arkSeeds() {
		f.Add(s, sels[i%len(sels)])
	}
	f.Fuzz(func(t *testing.T, s string, sel uint64) {
		a, err := normalize.ParseARK(s)
		if err != nil {
			return
		}
		key, full := a.Key(), a.String()
		if b, err := normalize.ParseARK(key); err != nil || b.Key() != key {
			return // not idempotent: FuzzARK's business, and edits of the key would be meaningless
		}
		bits := &bitReader{v: sel}

		var cur string
		var log []string
		start := labelLen(s)
		if bits.take(1) == 0 && start > 0 && start < len(s) && isASCIIAlnum(s[start]) {
			cur = s
			log = append(log, "raw input")
		} else {
			cur = reorderVariants(key, bits) + full[len(key):]
			log = append(log, "key with variants permuted: "+cur)
		}
		nops := 1 + int(bits.take(2))
		for i := 0; i < nops; i++ {
			var what string
			cur, what = equivalenceEdit(cur, bits)
			log = append(log, what+" -> "+cur)
		}
		t2, err := normalize.ParseARK(cur)
		if err != nil {
			t.Fatalf("%q (key %q) edited to %q no longer parses: %v\nedits: %s", s, key, cur, err, strings.Join(log, "\n  "))
		}
		if t2.Key() != key || t2.String() != full {
			t.Fatalf("%q (normal form %q) edited to %q normalizes to %q\nedits: %s", s, full, cur, t2.String(), strings.Join(log, "\n  "))
		}
		if eq, err := normalize.Equivalent(s, cur); err != nil || !eq {
			t.Fatalf("Equivalent(%q, %q) = %v, %v", s, cur, eq, err)
		}

		// Identity-changing edits of the key.
		if k2, ok := flipNameLetter(key, bits); ok {
			mustDiffer(t, key, k2, "Name letter case flipped")
		}
		if k2, ok := variantToComponent(key); ok {
			mustDiffer(t, key, k2, "first variant '.' turned into '/'")
		}
	})
}

func mustDiffer(t *testing.T, key, k2, what string) {
	t.Helper()
	b, err := normalize.ParseARK(k2)
	if err != nil {
		t.Fatalf("%s: %q -> %q does not parse: %v", what, key, k2, err)
	}
	if b.Key() == key {
		t.Fatalf("%s: %q and %q have the same key", what, key, k2)
	}
	if b.Key() != k2 {
		t.Fatalf("%s: %q is a normal form but normalizes to %q", what, k2, b.Key())
	}
}

func FuzzURN(f *testing.F) {
	sels := []uint64{0, 1, 0x5a5a5a5a5a5a5a5a, 0xffffffffffffffff, 0x123456789abcdef0}
	var seeds []string
	for _, class := range rfc8141Classes {
		seeds = append(seeds, class...)
	}
	for _, c := range urnCases {
		seeds = append(seeds, c.in)
	}
	for _, c := range urnErrCases {
		seeds = append(seeds, c.in)
	}
	seeds = append(seeds, "urn:Ex-1:%aa%bB/%Cc?+%dd?=?#?", "urn:example:é%c3%a9?=é")
	for i, s := range seeds {
		f.Add(s, sels[i%len(sels)])
	}
	f.Fuzz(func(t *testing.T, s string, sel uint64) {
		_, _ = normalize.ParseARK(s)
		id, perr := normalize.Parse(s)
		u, err := normalize.ParseURN(s)
		if err != nil {
			checkFuzzErr(t, "ParseURN", s, err)
			if len(s) >= 4 && strings.EqualFold(s[:4], "urn:") && perr == nil {
				t.Fatalf("Parse(%q) succeeded but ParseURN failed: %v", s, err)
			}
			return
		}
		key, str := u.Key(), u.String()
		checkURNShape(t, s, u)
		if perr != nil || id.Key() != key || id.String() != str {
			t.Fatalf("Parse(%q) = %v, %v; ParseURN gave %q", s, id, perr, str)
		}
		if k, err := normalize.Key(s); err != nil || k != key {
			t.Fatalf("Key(%q) = %q, %v; want %q", s, k, err, key)
		}
		for _, n := range []string{key, str} {
			if v, err := normalize.ParseURN(n); err != nil || v.String() != n {
				t.Fatalf("not idempotent: %q -> %q -> %v, %v", s, n, v, err)
			}
		}

		// Equivalence-preserving edits of the raw input.
		bits := &bitReader{v: sel}
		nidEnd := 4 + strings.IndexByte(s[4:], ':')
		nssEnd := coreEnd(s, nidEnd+1)
		b := []byte(s[:nssEnd])
		for i := 0; i < nidEnd; i++ { // scheme and NID case
			if isASCIILetter(b[i]) && bits.take(1) == 1 {
				b[i] ^= 0x20
			}
		}
		for i := nidEnd + 1; i < nssEnd; i++ { // hex case
			if b[i] == '%' {
				for j := i + 1; j <= i+2; j++ {
					if isASCIILetter(b[j]) && bits.take(1) == 1 {
						b[j] ^= 0x20
					}
				}
				i += 2
			}
		}
		edited := string(b)
		switch bits.take(2) { // components are ignored
		case 0:
			edited += s[nssEnd:]
		case 1:
			edited += "?+r?=q#f"
		case 2:
			edited += "?=q"
		case 3:
			edited += "#"
		}
		if v, err := normalize.ParseURN(edited); err != nil || v.Key() != key {
			t.Fatalf("%q (key %q) edited to %q: %v, %v", s, key, edited, v, err)
		}

		// Identity-changing edit: the case of an NSS letter outside %XX.
		var letters []int
		for i := nidEnd + 1; i < nssEnd; i++ {
			if s[i] == '%' {
				i += 2
			} else if isASCIILetter(s[i]) {
				letters = append(letters, i)
			}
		}
		if len(letters) > 0 {
			i := letters[bits.take(8)%uint64(len(letters))]
			flipped := s[:i] + string(s[i]^0x20) + s[i+1:]
			v, err := normalize.ParseURN(flipped)
			if err != nil || v.Key() == key {
				t.Fatalf("%q and %q (NSS letter case flipped): %v, %v; want different keys", s, flipped, v, err)
			}
		}
	})
}

// ---------------------------------------------------------------------------
// Invariant checks

func checkFuzzErr(t *testing.T, call, s string, err error) {
	t.Helper()
	var e *normalize.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s(%q): error %T %v is not a *normalize.Error", call, s, err, err)
	}
	known := false
	for _, w := range allSentinels {
		if errors.Is(err, w) {
			known = true
		}
	}
	if !known {
		t.Fatalf("%s(%q): error %v wraps no sentinel", call, s, err)
	}
	if errors.Is(err, normalize.ErrTooLong) {
		t.Fatalf("%s(%q): ErrTooLong without a length limit", call, s)
	}
	if e.Offset < 0 || e.Offset > len(s) {
		t.Fatalf("%s(%q): Offset %d outside the input", call, s, e.Offset)
	}
	if err.Error() == "" {
		t.Fatalf("%s(%q): empty message", call, s)
	}
}

const arkKeyChars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=~*+@_$./%"

func isARKUnreserved(c byte) bool {
	return c < 0x80 && (isASCIIAlnum(c) || strings.IndexByte("=~*+@_$", c) >= 0)
}

func checkARKKeyShape(t *testing.T, s, key string) {
	t.Helper()
	fail := func(why string) {
		t.Helper()
		t.Fatalf("ParseARK(%q).Key() = %q: %s", s, key, why)
	}
	if !strings.HasPrefix(key, "ark:") {
		fail("no ark: label")
	}
	rest := key[4:]
	slash := strings.IndexByte(rest, '/')
	if slash <= 0 {
		fail("no NAAN")
	}
	for i := 0; i < slash; i++ {
		if c := rest[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z') {
			fail("NAAN not lowercase letters and digits")
		}
	}
	if slash+1 >= len(rest) {
		fail("no Name")
	}
	if c := rest[slash+1]; c == '/' || c == '.' {
		fail("Name starts with a structural character")
	}
	if c := rest[len(rest)-1]; c == '/' || c == '.' {
		fail("trailing structural character")
	}
	for _, run := range []string{"//", "..", "./", "/."} {
		if strings.Contains(rest, run) {
			fail("contains " + run)
		}
	}
	var octets []byte
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if strings.IndexByte(arkKeyChars, c) < 0 {
			fail("character " + string(rune(c)) + " not allowed in a normal form (ASCII letters, digits, =~*+@_$./%)")
		}
		if c != '%' {
			octets = append(octets, c)
			continue
		}
		if i+2 >= len(rest) || !isUpperHex(rest[i+1]) || !isUpperHex(rest[i+2]) {
			fail("'%' not followed by two uppercase hex digits")
		}
		o := unhex(rest[i+1])<<4 | unhex(rest[i+2])
		if isARKUnreserved(o) || o == '-' {
			fail("percent-encodes an ARK-unreserved character or '-'")
		}
		if o < 0x20 || o == 0x7f {
			fail("percent-encodes a control")
		}
		octets = append(octets, o)
		i += 2
	}
	for len(octets) > 0 {
		r, n := utf8.DecodeRune(octets)
		octets = octets[n:]
		if r == utf8.RuneError && n == 1 {
			continue
		}
		switch {
		case r >= 0x80 && r <= 0x9f:
			fail("contains an encoded C1 control")
		case unicode.Is(unicode.Bidi_Control, r):
			fail("contains an encoded bidi control")
		case r >= 0x2010 && r <= 0x2015:
			fail("contains an encoded hyphen look-alike")
		}
	}
	// The VariantPath of the last segment is sorted and deduplicated.
	last := rest[strings.LastIndexByte(rest, '/')+1:]
	if parts := strings.Split(last, "."); len(parts) > 2 {
		for i := 2; i < len(parts); i++ {
			if parts[i-1] >= parts[i] {
				fail("VariantPath not sorted and deduplicated")
			}
		}
	}
}

func refShoulder(name string) string {
	i := 0
	for i < len(name) && strings.IndexByte("bcdfghjkmnpqrstvwxz", name[i]) >= 0 {
		i++
	}
	if i == 0 || i >= len(name) || name[i] < '0' || name[i] > '9' {
		return ""
	}
	return name[:i+1]
}

func checkARKAccessors(t *testing.T, s string, a normalize.ARK) {
	t.Helper()
	key := a.Key()
	fail := func(why string) {
		t.Helper()
		t.Fatalf("ParseARK(%q) (key %q): %s", s, key, why)
	}
	if key != "ark:"+a.NAAN()+"/"+a.Name()+a.Qualifier() {
		fail("Key() != ark: + NAAN() + / + Name() + Qualifier()")
	}
	if a.String() != key+a.Query()+a.Fragment() {
		fail("String() != Key() + Query() + Fragment()")
	}
	if q := a.Query(); q != "" && q[0] != '?' {
		fail("Query() does not start with '?'")
	}
	if fr := a.Fragment(); fr != "" && fr[0] != '#' {
		fail("Fragment() does not start with '#'")
	}
	if strings.Contains(a.Query(), "#") {
		fail("Query() contains '#'")
	}
	q := a.Query()
	if a.IsInfo() != (q == "?" || q == "??" || q == "?info") {
		fail("IsInfo() inconsistent with Query()")
	}
	if l := a.Label(); !strings.HasPrefix(s, l) || (strings.ToLower(l) != "ark:" && strings.ToLower(l) != "ark:/") {
		fail("Label() " + l + " is not the label as written")
	}
	if a.Name() == "" || strings.ContainsAny(a.Name(), "/") {
		fail("bad Name()")
	}
	if a.Shoulder()+a.Blade() != a.Name() {
		fail("Shoulder()+Blade() != Name()")
	}
	if a.Shoulder() != refShoulder(a.Name()) {
		fail("Shoulder() = " + a.Shoulder() + ", first-digit convention gives " + refShoulder(a.Name()))
	}
	vars := a.Variants()
	if !sort.StringsAreSorted(vars) {
		fail("Variants() not sorted")
	}
	for i, v := range vars {
		if v == "" || strings.ContainsAny(v, "./") || (i > 0 && vars[i-1] == v) {
			fail("bad Variants()")
		}
	}
	if len(vars) > 0 && !strings.HasSuffix(key, "."+strings.Join(vars, ".")) {
		fail("key does not end with the Variants()")
	}
	comps := a.Components()
	for _, c := range comps {
		if c == "" || strings.Contains(c, "/") {
			fail("bad Components()")
		}
	}
	if want := strings.Count(key, "/") - 1; len(comps) != want {
		fail("len(Components()) != number of '/' after the NAAN")
	}
	if len(comps) == 0 && len(vars) == 0 && a.Qualifier() != "" {
		fail("Qualifier() without Components() or Variants()")
	}
	n := len(comps)
	if len(vars) > 0 {
		n++
	}
	if len(a.Ancestors()) != n {
		fail("len(Ancestors()) != len(Components()) + (1 if Variants())")
	}
}

func checkURNShape(t *testing.T, s string, u normalize.URN) {
	t.Helper()
	key := u.Key()
	fail := func(why string) {
		t.Helper()
		t.Fatalf("ParseURN(%q) (key %q): %s", s, key, why)
	}
	nid := u.NID()
	if key != "urn:"+nid+":"+u.NSS() {
		fail("Key() != urn: + NID() + : + NSS()")
	}
	if len(nid) < 2 || len(nid) > 32 || nid[0] == '-' || nid[len(nid)-1] == '-' {
		fail("bad NID length or hyphen")
	}
	for i := 0; i < len(nid); i++ {
		if c := nid[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '-') {
			fail("NID not lowercase letters, digits, hyphens")
		}
	}
	nss := u.NSS()
	if nss == "" || nss[0] == '/' {
		fail("empty NSS or NSS starting with '/'")
	}
	for i := 0; i < len(nss); i++ {
		c := nss[i]
		switch {
		case c == '%':
			if i+2 >= len(nss) || !isUpperHex(nss[i+1]) || !isUpperHex(nss[i+2]) {
				fail("'%' not followed by two uppercase hex digits")
			}
			i += 2
		case isASCIIAlnum(c) || strings.IndexByte("-._~!$&'()*+,;=:@/", c) >= 0:
		default:
			fail("character not allowed in an NSS")
		}
	}
	exp := key
	if r := u.RComponent(); r != "" {
		exp += "?+" + r
	}
	if q := u.QComponent(); q != "" {
		exp += "?=" + q
	}
	if str := u.String(); str != exp+"#"+u.FComponent() && !(u.FComponent() == "" && str == exp) {
		fail("String() " + str + " is not Key() + components")
	}
}

// ---------------------------------------------------------------------------
// Edits

type bitReader struct{ v uint64 }

func (b *bitReader) take(n uint) uint64 {
	x := b.v & (1<<n - 1)
	b.v = b.v>>n | b.v<<(64-n) // rotate, so bits never run out
	return x
}

func hasARKScheme(s string) bool { return len(s) >= 4 && strings.EqualFold(s[:4], "ark:") }

// labelLen is the length of a case-insensitive "ark:" plus an optional "/".
func labelLen(s string) int {
	if !hasARKScheme(s) {
		return 0
	}
	if len(s) > 4 && s[4] == '/' {
		return 5
	}
	return 4
}

// coreEnd is the index of the first '?' or '#' at or after from.
func coreEnd(s string, from int) int {
	if i := strings.IndexAny(s[from:], "?#"); i >= 0 {
		return from + i
	}
	return len(s)
}

// charStarts lists the positions in [start, end] where a character starts
// (never inside a %XX triplet or a UTF-8 sequence), end included.
func charStarts(s string, start, end int) []int {
	var ps []int
	for i := start; i < end; {
		ps = append(ps, i)
		if s[i] == '%' && i+2 < end {
			i += 3
		} else {
			_, n := utf8.DecodeRuneInString(s[i:end])
			i += n
		}
	}
	return append(ps, end)
}

var hyphenLikes = []string{
	"-", "\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2015",
	"%2D", "%2d", "%E2%80%90", "%E2%80%93", "%e2%80%95", "%E2%80%94",
}

var labels = []string{"ark:", "ark:/", "ARK:", "ARK:/", "Ark:/", "aRk:"}

// equivalenceEdit applies one identity-preserving edit (NOTES.md) to an ARK
// whose core (after the label) starts with a letter or digit.
func equivalenceEdit(s string, bits *bitReader) (string, string) {
	start := labelLen(s)
	end := coreEnd(s, start)
	ps := charStarts(s, start, end)
	pick := func(xs []int) int { return xs[bits.take(10)%uint64(len(xs))] }
	naanEnd := start + strings.IndexByte(s[start:end], '/')
	switch op := bits.take(3); op {
	case 0, 1: // insert a hyphen or a look-alike anywhere
		p := pick(ps)
		h := hyphenLikes[bits.take(4)%uint64(len(hyphenLikes))]
		return s[:p] + h + s[p:], "insert " + h
	case 2: // change the label
		l := labels[bits.take(3)%uint64(len(labels))]
		return l + s[start:], "label " + l
	case 3: // percent-encode an ARK-unreserved character or '-'
		var cs []int
		for _, p := range ps[:len(ps)-1] {
			if isARKUnreserved(s[p]) || s[p] == '-' {
				cs = append(cs, p)
			}
		}
		if len(cs) == 0 {
			return s, "no-op (nothing to encode)"
		}
		p := pick(cs)
		enc := "%" + strings.ToUpper(string("0123456789abcdef"[s[p]>>4])+string("0123456789abcdef"[s[p]&15]))
		if bits.take(1) == 1 {
			enc = strings.ToLower(enc)
		}
		return s[:p] + enc + s[p+1:], "encode " + s[p:p+1]
	case 4: // change the case of %XX hex digits, or of a NAAN letter
		var cs []int
		for i := start; i < end; i++ {
			if s[i] == '%' {
				i += 2
				for _, j := range []int{i - 1, i} {
					if isASCIILetter(s[j]) {
						cs = append(cs, j)
					}
				}
			} else if i < naanEnd && isASCIILetter(s[i]) {
				cs = append(cs, i)
			}
		}
		if len(cs) == 0 {
			return s, "no-op (no case to change)"
		}
		p := pick(cs)
		return s[:p] + string(s[p]^0x20) + s[p+1:], "case of " + s[p:p+1]
	case 5: // append a trailing '/' or '.'
		c := "/."[bits.take(1)]
		return s[:end] + string(c) + s[end:], "append " + string(c)
	default: // double a structural character, or follow it by the other one
		var cs []int
		for _, p := range ps[:len(ps)-1] {
			if s[p] == '/' || s[p] == '.' {
				cs = append(cs, p)
			}
		}
		if len(cs) == 0 {
			return s, "no-op (no structural character)"
		}
		p := pick(cs) + 1
		c := "/."[bits.take(1)]
		return s[:p] + string(c) + s[p:], "insert structural " + string(c)
	}
}

// reorderVariants permutes (and maybe duplicates) the VariantPath of a key.
func reorderVariants(key string, bits *bitReader) string {
	ls := strings.LastIndexByte(key, '/') + 1
	parts := strings.Split(key[ls:], ".")
	vars := parts[1:]
	if len(vars) == 0 {
		return key
	}
	r := int(bits.take(4)) % len(vars)
	vars = append(vars[r:len(vars):len(vars)], vars[:r]...)
	if bits.take(1) == 1 {
		for i, j := 0, len(vars)-1; i < j; i, j = i+1, j-1 {
			vars[i], vars[j] = vars[j], vars[i]
		}
	}
	if bits.take(1) == 1 {
		vars = append(vars, vars[int(bits.take(4))%len(vars)])
	}
	return key[:ls] + parts[0] + "." + strings.Join(vars, ".")
}

// flipNameLetter changes the case of an ASCII letter of the Name in a key.
func flipNameLetter(key string, bits *bitReader) (string, bool) {
	start := strings.IndexByte(key[4:], '/') + 5
	end := len(key)
	if i := strings.IndexAny(key[start:], "/."); i >= 0 {
		end = start + i
	}
	var cs []int
	for i := start; i < end; i++ {
		if key[i] == '%' {
			i += 2
		} else if isASCIILetter(key[i]) {
			cs = append(cs, i)
		}
	}
	if len(cs) == 0 {
		return "", false
	}
	p := cs[bits.take(8)%uint64(len(cs))]
	return key[:p] + string(key[p]^0x20) + key[p+1:], true
}

// variantToComponent turns the first '.' of a key's last segment into '/'.
func variantToComponent(key string) (string, bool) {
	ls := strings.LastIndexByte(key, '/') + 1
	d := strings.IndexByte(key[ls:], '.')
	if d < 0 {
		return "", false
	}
	return key[:ls+d] + "/" + key[ls+d+1:], true
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isASCIIAlnum(c byte) bool  { return isASCIILetter(c) || c >= '0' && c <= '9' }
func isUpperHex(c byte) bool    { return c >= '0' && c <= '9' || c >= 'A' && c <= 'F' }
func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'A' + 10
}
