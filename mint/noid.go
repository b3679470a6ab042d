package mint

import (
	"fmt"
	"strings"
)

// Betanumeric is the Noid alphabet of "e" positions and check characters:
// digits and consonants without l, so that no two look alike.
const Betanumeric = "0123456789bcdfghjkmnpqrstvwxz"

// noidTemplate is a Noid minting template, such as ".reeddeedk".
type noidTemplate struct {
	order byte   // 'r' random, 's' sequential, 'z' unbounded sequential
	mask  string // the positions: 'd' a digit, 'e' a betanumeric character
	check bool   // a final NCDA check character
	size  uint64 // names the mask holds (for 'z', before it grows)
}

// maxSpace is the most names a template may describe, so that counters
// and random draws stay well inside 64 bits.
const maxSpace = 1 << 62

// parseNoidTemplate reads a template: an optional ".", then r, s or z,
// then d and e positions, then an optional k.
func parseNoidTemplate(s string) (noidTemplate, error) {
	var t noidTemplate
	m := strings.TrimPrefix(s, ".")
	if strings.Contains(m, ".") {
		return t, fmt.Errorf("template %q: put the prefix before the \".\" in the shoulder; a template is .<r|s|z><d|e...>[k]", s)
	}
	if m == "" || !strings.ContainsRune("rsz", rune(m[0])) {
		return t, fmt.Errorf("template %q: must start with r (random), s (sequential) or z (unbounded sequential)", s)
	}
	t.order, m = m[0], m[1:]
	if strings.HasSuffix(m, "k") {
		t.check, m = true, m[:len(m)-1]
	}
	if m == "" {
		return t, fmt.Errorf("template %q: needs at least one d or e position", s)
	}
	t.mask, t.size = m, 1
	for _, c := range m {
		if c != 'd' && c != 'e' {
			return t, fmt.Errorf("template %q: %q is not a position: use d (digit) or e (betanumeric), and k only at the end", s, c)
		}
		r := radix(byte(c))
		if t.size > maxSpace/r {
			return t, fmt.Errorf("template %q: more than 2^62 names", s)
		}
		t.size *= r
	}
	return t, nil
}

// radix is how many characters a position holds.
func radix(pos byte) uint64 {
	if pos == 'd' {
		return 10
	}
	return uint64(len(Betanumeric))
}

// bounded reports whether the template's space can run out.
func (t noidTemplate) bounded() bool { return t.order != 'z' }

// name returns the n-th name of the mask, without check character: n in
// mixed radix, last position least significant. An unbounded template
// grows by repeating its first position as n outgrows the mask.
func (t noidTemplate) name(n uint64) string {
	buf := make([]byte, 0, len(t.mask)+4)
	for i := len(t.mask) - 1; i > 0; i-- {
		r := radix(t.mask[i])
		buf = append(buf, Betanumeric[n%r])
		n /= r
	}
	r := radix(t.mask[0])
	for n >= r {
		buf = append(buf, Betanumeric[n%r])
		n /= r
	}
	buf = append(buf, Betanumeric[n])
	for i, j := 0, len(buf)-1; i < j; i, j = i+1, j-1 {
		buf[i], buf[j] = buf[j], buf[i]
	}
	return string(buf)
}

// NCDA returns the NCDA check character of s, which is "NAAN/Name" of a
// normalized ARK: the betanumeric character at the sum of each
// character's position (from 1) times its ordinal in betanumeric (0 for
// any other character), modulo 29.
func NCDA(s string) byte {
	var sum int
	for i := 0; i < len(s); i++ {
		if o := strings.IndexByte(Betanumeric, s[i]); o > 0 {
			sum += (i + 1) * o
		}
	}
	return Betanumeric[sum%len(Betanumeric)]
}

// CheckMatches reports whether s, "NAAN/Name" with a check character
// last, carries the right one.
func CheckMatches(s string) bool {
	return len(s) >= 2 && NCDA(s[:len(s)-1]) == s[len(s)-1]
}
