package normalize_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/normalize"
)

// RFC 8141 section 3.2, verbatim. Groups 1 and 2 form one equivalence class;
// every URN of group 3 and 5, and the URN of group 6, is alone in its class;
// group 4 is one class.
var rfc8141Classes = [][]string{
	{ // groups 1 and 2
		"urn:example:a123,z456",
		"URN:example:a123,z456",
		"urn:EXAMPLE:a123,z456",
		"urn:example:a123,z456?+abc",
		"urn:example:a123,z456?=xyz",
		"urn:example:a123,z456#789",
	},
	{"urn:example:a123,z456/foo"}, // group 3
	{"urn:example:a123,z456/bar"},
	{"urn:example:a123,z456/baz"},
	{ // group 4
		"urn:example:a123%2Cz456",
		"URN:EXAMPLE:a123%2cz456",
	},
	{"urn:example:A123,z456"}, // group 5
	{"urn:example:a123,Z456"},
	{"urn:example:%D0%B0123,z456"}, // group 6
}

var rfc8141Keys = []string{
	"urn:example:a123,z456",
	"urn:example:a123,z456/foo",
	"urn:example:a123,z456/bar",
	"urn:example:a123,z456/baz",
	"urn:example:a123%2Cz456",
	"urn:example:A123,z456",
	"urn:example:a123,Z456",
	"urn:example:%D0%B0123,z456",
}

func TestURNEquivalenceRFC8141(t *testing.T) {
	for i, class := range rfc8141Classes {
		for _, s := range class {
			u, err := normalize.ParseURN(s)
			if err != nil {
				t.Errorf("ParseURN(%q): %v", s, err)
				continue
			}
			if u.Key() != rfc8141Keys[i] {
				t.Errorf("ParseURN(%q).Key() = %q, want %q", s, u.Key(), rfc8141Keys[i])
			}
		}
	}
	for i, ci := range rfc8141Classes {
		for j, cj := range rfc8141Classes {
			for _, a := range ci {
				for _, b := range cj {
					eq, err := normalize.Equivalent(a, b)
					if err != nil {
						t.Errorf("Equivalent(%q, %q): %v", a, b, err)
					} else if eq != (i == j) {
						t.Errorf("Equivalent(%q, %q) = %v, want %v", a, b, eq, i == j)
					}
				}
			}
		}
	}
}

type urnCase struct {
	in       string
	key      string
	str      string
	nid, nss string
	r, q, f  string
}

var urnCases = []urnCase{
	{in: "urn:example:a123,z456", key: "urn:example:a123,z456", str: "urn:example:a123,z456", nid: "example", nss: "a123,z456"},
	{in: "urn:example:a123,z456?+abc", key: "urn:example:a123,z456", str: "urn:example:a123,z456?+abc", nid: "example", nss: "a123,z456", r: "abc"},
	{in: "urn:example:a123,z456?=xyz", key: "urn:example:a123,z456", str: "urn:example:a123,z456?=xyz", nid: "example", nss: "a123,z456", q: "xyz"},
	{in: "urn:example:a123,z456#789", key: "urn:example:a123,z456", str: "urn:example:a123,z456#789", nid: "example", nss: "a123,z456", f: "789"},
	{in: "URN:EXAMPLE:a123%2cz456?=xyz", key: "urn:example:a123%2Cz456", str: "urn:example:a123%2Cz456?=xyz", nid: "example", nss: "a123%2Cz456", q: "xyz"},
	// RFC 8141 2.3 examples.
	{in: "urn:example:foo-bar-baz-qux?+CCResolve:cc=uk", key: "urn:example:foo-bar-baz-qux",
		str: "urn:example:foo-bar-baz-qux?+CCResolve:cc=uk", nid: "example", nss: "foo-bar-baz-qux", r: "CCResolve:cc=uk"},
	{in: "urn:example:weather?=op=map&lat=39.56&lon=-104.85&datetime=1969-07-21T02:56:15Z", key: "urn:example:weather",
		str: "urn:example:weather?=op=map&lat=39.56&lon=-104.85&datetime=1969-07-21T02:56:15Z", nid: "example", nss: "weather",
		q: "op=map&lat=39.56&lon=-104.85&datetime=1969-07-21T02:56:15Z"},
	{in: "urn:example:foo-bar-baz-qux#somepart", key: "urn:example:foo-bar-baz-qux",
		str: "urn:example:foo-bar-baz-qux#somepart", nid: "example", nss: "foo-bar-baz-qux", f: "somepart"},
	{in: "urn:example:apple:pear:plum:cherry", key: "urn:example:apple:pear:plum:cherry",
		str: "urn:example:apple:pear:plum:cherry", nid: "example", nss: "apple:pear:plum:cherry"},
	{in: "urn:example:1/406/47452/2", key: "urn:example:1/406/47452/2", str: "urn:example:1/406/47452/2", nid: "example", nss: "1/406/47452/2"},
	// All three components, in order.
	{in: "urn:example:a?+r?=q#f", key: "urn:example:a", str: "urn:example:a?+r?=q#f", nid: "example", nss: "a", r: "r", q: "q", f: "f"},
	// '?' (and '/') may appear inside the components.
	{in: "urn:example:a?+r?x/y?=q?z/w#f?v/u", key: "urn:example:a", str: "urn:example:a?+r?x/y?=q?z/w#f?v/u",
		nid: "example", nss: "a", r: "r?x/y", q: "q?z/w", f: "f?v/u"},
	// The r-component ends at the first "?=": here it is "r?".
	{in: "urn:example:a?+r??=q", key: "urn:example:a", str: "urn:example:a?+r??=q", nid: "example", nss: "a", r: "r?", q: "q"},
	// The q-component comes after the r-component: a "?+" inside it is data.
	{in: "urn:example:a?=q?+r", key: "urn:example:a", str: "urn:example:a?=q?+r", nid: "example", nss: "a", q: "q?+r"},
	// Components are kept as given (hex not uppercased, not decoded).
	{in: "urn:example:a?+%2a?=%2b#%2c", key: "urn:example:a", str: "urn:example:a?+%2a?=%2b#%2c", nid: "example", nss: "a", r: "%2a", q: "%2b", f: "%2c"},
	// NID: lowercased; 2 to 32 letters, digits, hyphens.
	{in: "urn:ISBN:0-395-36341-1", key: "urn:isbn:0-395-36341-1", str: "urn:isbn:0-395-36341-1", nid: "isbn", nss: "0-395-36341-1"},
	{in: "Urn:Urn-7:x", key: "urn:urn-7:x", str: "urn:urn-7:x", nid: "urn-7", nss: "x"},
	{in: "urn:ab:x", key: "urn:ab:x", str: "urn:ab:x", nid: "ab", nss: "x"},
	{in: "urn:a--b:x", key: "urn:a--b:x", str: "urn:a--b:x", nid: "a--b", nss: "x"},
	{in: "urn:" + strings.Repeat("A", 32) + ":x", key: "urn:" + strings.Repeat("a", 32) + ":x",
		str: "urn:" + strings.Repeat("a", 32) + ":x", nid: strings.Repeat("a", 32), nss: "x"},
	// NSS: hex uppercased, never decoded, case and hyphens significant.
	{in: "urn:example:a%2db%41%7e", key: "urn:example:a%2Db%41%7E", str: "urn:example:a%2Db%41%7E", nid: "example", nss: "a%2Db%41%7E"},
	{in: "urn:example:a%2fb", key: "urn:example:a%2Fb", str: "urn:example:a%2Fb", nid: "example", nss: "a%2Fb"},
	{in: "urn:example:a//b/", key: "urn:example:a//b/", str: "urn:example:a//b/", nid: "example", nss: "a//b/"},
	{in: "urn:example:a!$&'()*+,;=:@-._~/b", key: "urn:example:a!$&'()*+,;=:@-._~/b",
		str: "urn:example:a!$&'()*+,;=:@-._~/b", nid: "example", nss: "a!$&'()*+,;=:@-._~/b"},
	{in: "urn:example::", key: "urn:example::", str: "urn:example::", nid: "example", nss: ":"},
	// Raw non-ASCII in the NSS is percent-encoded (IRI to URI).
	{in: "urn:example:\u0430123,z456", key: "urn:example:%D0%B0123,z456", str: "urn:example:%D0%B0123,z456", nid: "example", nss: "%D0%B0123,z456"},
}

func TestURN(t *testing.T) {
	for _, c := range urnCases {
		u, err := normalize.ParseURN(c.in)
		if err != nil {
			t.Errorf("ParseURN(%q): %v", c.in, err)
			continue
		}
		check := func(what, got, want string) {
			t.Helper()
			if got != want {
				t.Errorf("ParseURN(%q).%s = %q, want %q", c.in, what, got, want)
			}
		}
		check("Key()", u.Key(), c.key)
		check("String()", u.String(), c.str)
		check("NID()", u.NID(), c.nid)
		check("NSS()", u.NSS(), c.nss)
		check("RComponent()", u.RComponent(), c.r)
		check("QComponent()", u.QComponent(), c.q)
		check("FComponent()", u.FComponent(), c.f)

		if got, err := normalize.Key(c.in); err != nil || got != c.key {
			t.Errorf("Key(%q) = %q, %v; want %q", c.in, got, err, c.key)
		}
		if got, err := normalize.Normalize(c.in); err != nil || got != c.str {
			t.Errorf("Normalize(%q) = %q, %v; want %q", c.in, got, err, c.str)
		}
		id, err := normalize.Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		switch id.(type) {
		case normalize.URN, *normalize.URN:
		default:
			t.Errorf("Parse(%q) returned %T, want a URN", c.in, id)
		}
		if id.Key() != c.key || id.String() != c.str {
			t.Errorf("Parse(%q) = %q / %q, want %q / %q", c.in, id.Key(), id.String(), c.key, c.str)
		}
		// Idempotent.
		for _, s := range []string{c.key, c.str} {
			if got, err := normalize.Normalize(s); err != nil || got != s {
				t.Errorf("Normalize(%q) = %q, %v: normal form not a fixed point", s, got, err)
			}
		}
	}
}

func TestURNNotEquivalent(t *testing.T) {
	for _, p := range [][2]string{
		{"urn:example:a", "urn:example:A"},
		{"urn:example:a-b", "urn:example:ab"},    // no hyphen deletion in URNs
		{"urn:example:a%2Db", "urn:example:a-b"}, // never decoded
		{"urn:example:a%41", "urn:example:aA"},   // never decoded
		{"urn:example:a/", "urn:example:a"},      // no trailing-slash repair
		{"urn:example:a//b", "urn:example:a/b"},  // no collapsing
		{"urn:example:a", "urn:exampl:a"},
		{"urn:example:a", "ark:12345/a"},
	} {
		for _, q := range [][2]string{p, {p[1], p[0]}} {
			eq, err := normalize.Equivalent(q[0], q[1])
			if err != nil || eq {
				t.Errorf("Equivalent(%q, %q) = %v, %v; want false", q[0], q[1], eq, err)
			}
		}
	}
}

var (
	errURN = normalize.ErrBadURN
)

var urnErrCases = []errCase{
	// NID: 2 to 32 characters.
	within("urn:a:x", errURN, 4, 5),
	within("urn:"+strings.Repeat("a", 33)+":x", errURN, 4, 37),
	within("urn::x", errURN, 4, 4),
	// NID: no leading or trailing hyphen, letters/digits/hyphens only.
	within("urn:-ab:x", errURN, 4, 4),
	within("urn:ab-:x", errURN, 4, 6),
	within("urn:-:x", errURN, 4, 4),
	within("urn:a_b:x", errURN, 4, 5),
	within("urn:a.b:x", errURN, 4, 5),
	within("urn:a%41:x", errURN, 4, 5),
	within("urn:exämple:x", errURN, 4, 6),
	// Missing parts.
	within("urn:", errURN, 0, 4),
	within("urn:example", errURN, 0, 11),
	within("urn:example:", errURN, 4, 12),
	within("urn:example:?+r", errURN, 4, 12),
	within("urn:example:?=q", errURN, 4, 12),
	within("urn:example:#f", errURN, 4, 12),
	// NSS = pchar *(pchar / "/"): no leading '/', no characters outside pchar.
	at("urn:example:/a", errURN, 12),
	at("urn:example:a b", errURN, 13),
	at("urn:example:a\"b", errURN, 13),
	at("urn:example:a<b", errURN, 13),
	at("urn:example:a>b", errURN, 13),
	at("urn:example:a[b", errURN, 13),
	at("urn:example:a]b", errURN, 13),
	at("urn:example:a\\b", errURN, 13),
	at("urn:example:a^b", errURN, 13),
	at("urn:example:a`b", errURN, 13),
	at("urn:example:a{b", errURN, 13),
	at("urn:example:a|b", errURN, 13),
	at("urn:example:a}b", errURN, 13),
	// A '?' not followed by '+' or '=' is a syntax error (RFC 8141 section 2).
	at("urn:example:a?b", errURN, 13),
	at("urn:example:a?", errURN, 13),
	at("urn:example:a??+r", errURN, 13),
	at("urn:example:a?-r", errURN, 13),
	// Empty r- or q-component.
	within("urn:example:a?+", errURN, 13, 15),
	within("urn:example:a?=", errURN, 13, 15),
	within("urn:example:a?+?=q", errURN, 13, 15),
	within("urn:example:a?+r?=", errURN, 16, 18),
	// Bad characters in the components.
	within("urn:example:a?+r r", errURN, 13, 16),
	within("urn:example:a?=q q", errURN, 13, 16),
	// Percent-encoding.
	{"urn:example:a%G1", []error{errURN, normalize.ErrPercentEncoding}, 13, 13},
	{"urn:example:a%4", []error{errURN, normalize.ErrPercentEncoding}, 13, 13},
	{"urn:example:a%", []error{errURN, normalize.ErrPercentEncoding}, 13, 13},
	// Raw controls and bidi formatting characters are refused.
	{"urn:example:a\nb", []error{errURN, normalize.ErrControl}, 13, 13},
	{"urn:example:a\u0085b", []error{errURN, normalize.ErrControl}, 13, 13},
	{"urn:example:a\u202eb", []error{errURN, normalize.ErrBidi}, 13, 13},
	// Invalid raw UTF-8.
	{"urn:example:a\xffb", []error{errURN, normalize.ErrNotIdentifier}, 13, 13},
}

func TestURNErrors(t *testing.T) {
	for _, c := range urnErrCases {
		u, err := normalize.ParseURN(c.in)
		if err == nil {
			t.Errorf("ParseURN(%q) = %q, want error %v", c.in, u.String(), c.want)
			continue
		}
		checkErr(t, fmt.Sprintf("ParseURN(%q)", c.in), err, c)
		_, err = normalize.Parse(c.in)
		checkErr(t, fmt.Sprintf("Parse(%q)", c.in), err, c)
		_, err = normalize.Key(c.in)
		checkErr(t, fmt.Sprintf("Key(%q)", c.in), err, c)
	}
	// Wrong scheme for ParseURN.
	for _, s := range []string{"ark:12345/x", "", "urn", "http://example.com/urn:example:x"} {
		_, err := normalize.ParseURN(s)
		checkErr(t, fmt.Sprintf("ParseURN(%q)", s), err, errCase{s, []error{errURN, normalize.ErrNotIdentifier}, 0, len(s)})
	}
}

// A hyphen between percent-encoded octets is part of a URN's NSS: it is
// kept, and the octets on each side stay as they are (found by FuzzURN).
func TestURNHyphenBetweenEncodedOctets(t *testing.T) {
	for in, want := range map[string]string{
		"urn:00:%80-%800":      "urn:00:%80-%800",
		"urn:ex:%e2%80-%93":    "urn:ex:%E2%80-%93",
		"urn:ex:a%C3-%A9-%c3b": "urn:ex:a%C3-%A9-%C3b",
	} {
		got, err := normalize.Key(in)
		if err != nil || got != want {
			t.Errorf("Key(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
