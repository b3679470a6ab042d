package normalize_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/normalize"
)

// Every expectation in this file comes from the specs in /work/shared/specs
// (draft-ark-uri-scheme, the ARK FAQ, NOTES.md) or from the API contract
// /work/notes/normalize-api.md, never from what the implementation prints.

var allSentinels = []error{
	normalize.ErrNotIdentifier,
	normalize.ErrBadNAAN,
	normalize.ErrPercentEncoding,
	normalize.ErrControl,
	normalize.ErrBidi,
	normalize.ErrTooLong,
	normalize.ErrBadURN,
}

func TestConstants(t *testing.T) {
	if normalize.MinMaxLength != 255 {
		t.Errorf("MinMaxLength = %d, want 255", normalize.MinMaxLength)
	}
	if normalize.ExampleNAAN != "12345" {
		t.Errorf("ExampleNAAN = %q, want 12345", normalize.ExampleNAAN)
	}
	if normalize.InvalidNAAN != "99999" {
		t.Errorf("InvalidNAAN = %q, want 99999", normalize.InvalidNAAN)
	}
}

func TestSentinelsDistinct(t *testing.T) {
	for i, a := range allSentinels {
		if a == nil {
			t.Fatalf("sentinel %d is nil", i)
		}
		for j, b := range allSentinels {
			if i != j && errors.Is(a, b) {
				t.Errorf("sentinel %v Is %v", a, b)
			}
		}
	}
}

func TestErrorType(t *testing.T) {
	e := &normalize.Error{Err: normalize.ErrPercentEncoding, Offset: 12, Detail: `"%G1" is not %XX`}
	if !errors.Is(e, normalize.ErrPercentEncoding) {
		t.Errorf("errors.Is(*Error, its sentinel) = false")
	}
	if errors.Is(e, normalize.ErrControl) {
		t.Errorf("errors.Is(*Error, other sentinel) = true")
	}
	if e.Unwrap() != normalize.ErrPercentEncoding {
		t.Errorf("Unwrap() = %v", e.Unwrap())
	}
	if msg := e.Error(); msg == "" || !strings.Contains(msg, "12") {
		t.Errorf("Error() = %q, want a message mentioning the byte offset 12", msg)
	}
}

// ---------------------------------------------------------------------------
// Normal forms

type keyCase struct {
	in  string
	key string // Key(): normal form without query and fragment
	str string // String(): full normal form; "" means same as key
}

var arkKeyCases = []keyCase{
	// draft-ark-uri-scheme: resolution example, all three are the same ARK.
	{"ark:12345/c3700931", "ark:12345/c3700931", ""},
	{"ark:12345/c370-0931", "ark:12345/c3700931", ""},
	{"ark:/12-345/c37-009-31--", "ark:12345/c3700931", ""},
	// draft: basic ARK, variants, components, non-ASCII.
	{"ark:12345/ax20315", "ark:12345/ax20315", ""},
	{"ark:12345/ax20315.en", "ark:12345/ax20315.en", ""},
	{"ark:12345/ax20315.svg", "ark:12345/ax20315.svg", ""},
	{"ark:12345/ax20315.en.svg", "ark:12345/ax20315.en.svg", ""},
	{"ark:12345/ax20315.svg.en", "ark:12345/ax20315.en.svg", ""},
	{"ark:12345/ax20315/edition1/chapter5", "ark:12345/ax20315/edition1/chapter5", ""},
	{"ark:12345/4бф3х1", "ark:12345/4%D0%B1%D1%843%D1%851", ""},
	{"ark:21206/10015", "ark:21206/10015", ""},
	{"ark:12345/ax20315?info", "ark:12345/ax20315", "ark:12345/ax20315?info"},
	// FAQ examples.
	{"ark:/99999/fk4gt2m", "ark:99999/fk4gt2m", ""},
	{"ark:/12345/p987654", "ark:12345/p987654", ""},
	{"ark:/12345/x5wf6789", "ark:12345/x5wf6789", ""},
	{"ark:/12345/x5wf6789/c2/s4.pdf", "ark:12345/x5wf6789/c2/s4.pdf", ""},
	{"ark:/12345/x5/wf6789/c2/s4.pdf", "ark:12345/x5/wf6789/c2/s4.pdf", ""},
	{"ark:/12345/cd456f9_87", "ark:12345/cd456f9_87", ""},
	{"ark:/99166/w66d60p2", "ark:99166/w66d60p2", ""},
	{"ark:12345/a=b~c*d+e@f_g$h", "ark:12345/a=b~c*d+e@f_g$h", ""},
	// API contract examples.
	{"ark:12345/x5wf6789/c2/s4.en.pdf", "ark:12345/x5wf6789/c2/s4.en.pdf", ""},
	{"ark:/12345/x5wf6789/c2.pdf?info", "ark:12345/x5wf6789/c2.pdf", "ark:12345/x5wf6789/c2.pdf?info"},

	// Step 1: the label.
	{"ARK:/12345/x5wf6789", "ark:12345/x5wf6789", ""},
	{"ARK:12345/x5wf6789", "ark:12345/x5wf6789", ""},
	{"Ark:/12345/x5wf6789", "ark:12345/x5wf6789", ""},
	{"aRk:12345/x5wf6789", "ark:12345/x5wf6789", ""},

	// Step 2.1: percent-encoding normalization.
	{"ark:12345/x%2dy", "ark:12345/xy", ""},
	{"ark:12345/x%2Dy", "ark:12345/xy", ""},
	{"ark:12345/%41bc", "ark:12345/Abc", ""},
	{"ark:12345/x%61", "ark:12345/xa", ""},
	{"ark:12345/x%30%39%5A%7a", "ark:12345/x09Zz", ""},
	{"ark:12345/x%3d%7E%2a%2B%40%5f%24", "ark:12345/x=~*+@_$", ""},
	{"ark:12345/x%2fy", "ark:12345/x%2Fy", ""},
	{"ark:12345/x%2Fy", "ark:12345/x%2Fy", ""},
	{"ark:12345/x%2ey", "ark:12345/x%2Ey", ""},
	{"ark:12345/x%2Ey", "ark:12345/x%2Ey", ""},
	{"ark:12345/x%2F%2F", "ark:12345/x%2F%2F", ""}, // encoded: not structural, not collapsed, not trailing
	{"ark:12345/x%2E%2E", "ark:12345/x%2E%2E", ""},
	{"ark:12345/x%2E.en", "ark:12345/x%2E.en", ""},
	{"ark:12345/x%25", "ark:12345/x%25", ""},
	{"ark:12345/x%2541", "ark:12345/x%2541", ""}, // no double decoding
	{"ark:12345/x%21", "ark:12345/x%21", ""},     // '!' is not ARK-unreserved
	{"ark:12345/x%3a%3f%23", "ark:12345/x%3A%3F%23", ""},
	{"ark:12345/x%20y", "ark:12345/x%20y", ""}, // space is reserved, not a control
	{"ark:12345/x%7c", "ark:12345/x%7C", ""},
	{"ark:12345/x%c3%a9", "ark:12345/x%C3%A9", ""},
	{"ark:12345/x%C2%A0", "ark:12345/x%C2%A0", ""}, // U+00A0 is not a control
	{"ark:12345/x%ff", "ark:12345/x%FF", ""},       // percent-encoded octets have always been allowed
	{"ark:%31%32%33%34%35/x", "ark:12345/x", ""},
	{"ark:1%2d2345/x", "ark:12345/x", ""},

	// Step 2.2: hyphens deleted, NAAN too.
	{"ark:12345/-x-", "ark:12345/x", ""},
	{"ark:1-2-3-4-5/x", "ark:12345/x", ""},
	{"ark:-12345-/x", "ark:12345/x", ""},
	{"ark:12345/x-.-en", "ark:12345/x.en", ""},
	{"ark:12345/x/c-2/s-4.p-df", "ark:12345/x/c2/s4.pdf", ""},

	// Step 2.3: VariantPath sorted by code point, deduplicated.
	{"ark:12345/x.b.a", "ark:12345/x.a.b", ""},
	{"ark:12345/x.en.en", "ark:12345/x.en", ""},
	{"ark:12345/x.en.e-n", "ark:12345/x.en", ""},
	{"ark:12345/x.b.a.b.a", "ark:12345/x.a.b", ""},
	{"ark:12345/x.b.B.a", "ark:12345/x.B.a.b", ""}, // 'B' < 'a' by code point
	{"ark:12345/x.10.9", "ark:12345/x.10.9", ""},   // '1' < '9', not numeric
	{"ark:12345/x.9.10", "ark:12345/x.10.9", ""},
	{"ark:12345/x.b.%41", "ark:12345/x.A.b", ""},         // decoded (step 2.1) before sorting
	{"ark:12345/x.z.%c3%a9", "ark:12345/x.%C3%A9.z", ""}, // '%' < 'z', not decoded for sorting
	{"ark:12345/x.a%2Eb.a", "ark:12345/x.a.a%2Eb", ""},   // %2E is not a separator
	{"ark:12345/x/c2/s4.pdf.en", "ark:12345/x/c2/s4.en.pdf", ""},
	{"ark:12345/x5wf6789/c2/s4.pdf.en.pdf", "ark:12345/x5wf6789/c2/s4.en.pdf", ""},
	// Only the last segment carries the VariantPath.
	{"ark:12345/a.c.b/d.f.e", "ark:12345/a.c.b/d.e.f", ""},
	// Idempotence (NOTES.md "Facts that follow") forces sorting on the
	// encoded form: the normal form of .z.é must already be sorted, and é and
	// %C3%A9 are the same suffix once encoded.
	{"ark:12345/x.z.é", "ark:12345/x.%C3%A9.z", ""},
	{"ark:12345/x.é.%C3%A9", "ark:12345/x.%C3%A9", ""},

	// Step 2.4: non-ASCII percent-encoded with uppercase hex.
	{"ark:12345/xé", "ark:12345/x%C3%A9", ""},
	{"ark:12345/x😀", "ark:12345/x%F0%9F%98%80", ""},
	{"ark:12345/x\u2212y", "ark:12345/x%E2%88%92y", ""}, // MINUS SIGN is not a hyphen look-alike
	{"ark:12345/x\u2016y", "ark:12345/x%E2%80%96y", ""}, // U+2016 is just past the look-alike range
	{"ark:12345/x\u00ady", "ark:12345/x%C2%ADy", ""},    // SOFT HYPHEN is not in U+2010..U+2015

	// Lenient: uppercase NAAN.
	{"ark:ABCDE/x", "ark:abcde/x", ""},
	{"ark:/AbCdE/XyZ", "ark:abcde/XyZ", ""},
	{"ark:%41%42%43/x", "ark:abc/x", ""}, // decoded then lowercased (else not idempotent)

	// Lenient: trailing and doubled structural characters.
	{"ark:12345/x/", "ark:12345/x", ""},
	{"ark:12345/x.", "ark:12345/x", ""},
	{"ark:12345/x/.", "ark:12345/x", ""},
	{"ark:12345/x./", "ark:12345/x", ""},
	{"ark:12345/x/./", "ark:12345/x", ""},
	{"ark:12345/x/y//", "ark:12345/x/y", ""},
	{"ark:12345/x.pdf.", "ark:12345/x.pdf", ""},
	{"ark:12345/x.pdf/", "ark:12345/x.pdf", ""},
	{"ark:12345/x//y", "ark:12345/x/y", ""},
	{"ark:12345/x..en", "ark:12345/x.en", ""},
	{"ark:12345/x./y", "ark:12345/x.y", ""},
	{"ark:12345/x/.y", "ark:12345/x/y", ""},
	{"ark:12345/x///y...z", "ark:12345/x/y.z", ""},
	{"ark:12345//x", "ark:12345/x", ""},
	{"ark:/12345//x", "ark:12345/x", ""},
	{"ark:12345/x/?info", "ark:12345/x", "ark:12345/x?info"},
	{"ark:12345/x.#f", "ark:12345/x", "ark:12345/x#f"},
	// ... including runs that appear once hyphens are deleted.
	{"ark:12345/x/-/y", "ark:12345/x/y", ""},
	{"ark:12345/x.-.en", "ark:12345/x.en", ""},
	{"ark:12345/x-/", "ark:12345/x", ""},
	{"ark:12345/x/-", "ark:12345/x", ""},
	{"ark:12345/x.-", "ark:12345/x", ""},
	{"ark:12345/-/x", "ark:12345/x", ""},
	{"ark:12345/x.%2d", "ark:12345/x", ""},
	{"ark:12345/x/%2D/y", "ark:12345/x/y", ""},

	// Lenient: hyphen look-alikes U+2010..U+2015, raw and percent-encoded.
	{"ark:12345/c370\u20100931", "ark:12345/c3700931", ""},
	{"ark:12345/c370\u20110931", "ark:12345/c3700931", ""},
	{"ark:12345/c370\u20120931", "ark:12345/c3700931", ""},
	{"ark:12345/c370\u20130931", "ark:12345/c3700931", ""},
	{"ark:12345/c370\u20140931", "ark:12345/c3700931", ""},
	{"ark:12345/c370\u20150931", "ark:12345/c3700931", ""},
	{"ark:12345/c370%E2%80%900931", "ark:12345/c3700931", ""},
	{"ark:12345/c370%E2%80%910931", "ark:12345/c3700931", ""},
	{"ark:12345/c370%E2%80%920931", "ark:12345/c3700931", ""},
	{"ark:12345/c370%E2%80%930931", "ark:12345/c3700931", ""},
	{"ark:12345/c370%E2%80%940931", "ark:12345/c3700931", ""},
	{"ark:12345/c370%E2%80%950931", "ark:12345/c3700931", ""},
	{"ark:12345/c370%e2%80%930931", "ark:12345/c3700931", ""},
	{"ark:12\u2013345/x", "ark:12345/x", ""},
	{"ark:12%E2%80%94345/x", "ark:12345/x", ""},
	{"ark:12345/x/\u2014/y", "ark:12345/x/y", ""},
	{"ark:12345/x.\u2013", "ark:12345/x", ""},
	// Hyphens are identity-inert (draft: "Basic ARKs that differ only by
	// insertion or removal of "-" are equivalent"), so a hyphen between the
	// octets of a percent-encoded character is inert too: %E2%80-%93 is
	// %E2%80%93 (EN DASH), deleted; %C3-%A9 is é.
	{"ark:12345/x%E2%80-%93y", "ark:12345/xy", ""},
	{"ark:12345/x%C3-%A9", "ark:12345/x%C3%A9", ""},

	// Query and fragment are set aside untouched.
	{"ark:12345/x-y?a-b=%2d#Sec-1%2d", "ark:12345/xy", "ark:12345/xy?a-b=%2d#Sec-1%2d"},
	{"ark:12345/x?", "ark:12345/x", "ark:12345/x?"},
	{"ark:12345/x??", "ark:12345/x", "ark:12345/x??"},
	{"ark:12345/x?info#top", "ark:12345/x", "ark:12345/x?info#top"},
	{"ark:12345/x#f?q", "ark:12345/x", "ark:12345/x#f?q"},
	{"ARK:/12-345/x.b.a?Q=1#F-2", "ark:12345/x.a.b", "ark:12345/x.a.b?Q=1#F-2"},

	// NAAN 99999 parses fine.
	{"ark:99999/x", "ark:99999/x", ""},
}

func TestARKKey(t *testing.T) {
	for _, c := range arkKeyCases {
		want := c.str
		if want == "" {
			want = c.key
		}
		a, err := normalize.ParseARK(c.in)
		if err != nil {
			t.Errorf("ParseARK(%q): unexpected error %v", c.in, err)
			continue
		}
		if got := a.Key(); got != c.key {
			t.Errorf("ParseARK(%q).Key() = %q, want %q", c.in, got, c.key)
		}
		if got := a.String(); got != want {
			t.Errorf("ParseARK(%q).String() = %q, want %q", c.in, got, want)
		}
		if got, err := normalize.Key(c.in); err != nil || got != c.key {
			t.Errorf("Key(%q) = %q, %v; want %q", c.in, got, err, c.key)
		}
		if got, err := normalize.Normalize(c.in); err != nil || got != want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", c.in, got, err, want)
		}
		if got, err := (normalize.Parser{}).Key(c.in); err != nil || got != c.key {
			t.Errorf("Parser{}.Key(%q) = %q, %v; want %q", c.in, got, err, c.key)
		}
		id, err := normalize.Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): unexpected error %v", c.in, err)
			continue
		}
		switch id.(type) {
		case normalize.ARK, *normalize.ARK:
		default:
			t.Errorf("Parse(%q) returned %T, want an ARK", c.in, id)
		}
		if id.Key() != c.key || id.String() != want {
			t.Errorf("Parse(%q) = %q / %q, want %q / %q", c.in, id.Key(), id.String(), c.key, want)
		}
	}
}

// The normal form is a fixed point (NOTES.md: normalization is idempotent),
// pure ASCII, and parses to itself.
func TestARKIdempotent(t *testing.T) {
	for _, c := range arkKeyCases {
		for _, s := range []string{c.key, c.str} {
			if s == "" {
				continue
			}
			got, err := normalize.Normalize(s)
			if err != nil {
				t.Errorf("Normalize(%q) (a normal form): %v", s, err)
				continue
			}
			if got != s {
				t.Errorf("Normalize(%q) = %q, normal form not a fixed point", s, got)
			}
		}
		for i := 0; i < len(c.key); i++ {
			if c.key[i] >= 0x80 {
				t.Errorf("test table bug: key %q is not ASCII", c.key)
				break
			}
		}
	}
}

// ---------------------------------------------------------------------------
// Equivalence

var arkEquivalent = [][2]string{
	{"ark:12345/c3700931", "ark:12345/c370-0931"},
	{"ark:12345/c3700931", "ark:/12-345/c37-009-31--"},
	{"ark:12345/c370-0931", "ark:/12-345/c37-009-31--"},
	{"ark:12345/ax20315.en.svg", "ark:12345/ax20315.svg.en"},
	{"ark:12345/4бф3х1", "ark:12345/4%D0%B1%D1%843%D1%851"},
	{"ark:12345/4бф3х1", "ark:12345/4%d0%b1%d1%843%d1%851"},
	{"ark:12345/x5wf6789", "ARK:/12345/x5wf6789"},
	{"ark:12345/x5wf6789", "ark:/12345/x5wf6789"},
	{"ark:12345/ab", "ark:12345/a%62"},
	{"ark:12345/a%2Fb", "ark:12345/a%2fb"},
	{"ark:12345/a%2Eb", "ark:12345/a%2eb"},
	{"ark:ABCDE/x", "ark:abcde/x"},
	{"ark:12345/x", "ark:12345/x/"},
	{"ark:12345/x/y", "ark:12345/x//y"},
	{"ark:12345/x.y", "ark:12345/x..y"},
	{"ark:12345/x", "ark:12345/x\u2013"},
	{"ark:12345/xé", "ark:12345/x%C3%A9"},
	// Equivalent compares keys (API contract); the inflection is not part of the key.
	{"ark:12345/x", "ark:12345/x?info"},
	{"ark:12345/x#a", "ark:12345/x#b"},
}

var arkNotEquivalent = [][2]string{
	{"ark:12345/x5", "ark:12345/X5"},                   // Name case is significant
	{"ark:12345/x5wf6789/c2", "ark:12345/x5wf6789/C2"}, // Qualifier case too
	{"ark:12345/x.pdf", "ark:12345/x.PDF"},
	{"ark:12345/a%2Fb", "ark:12345/a/b"}, // %2F is not '/'
	{"ark:12345/a%2Eb", "ark:12345/a.b"}, // %2E is not '.'
	{"ark:12345/a/b", "ark:12345/a.b"},   // component vs variant
	{"ark:12345/x", "ark:12346/x"},
	{"ark:12345/x.en.svg", "ark:12345/x.en"},
	{"ark:12345/x5wf6789/c2/s4.pdf", "ark:12345/x5/wf6789/c2/s4.pdf"}, // FAQ: the shoulder is not a component
	{"ark:12345/x/y", "ark:12345/x%2Fy"},
	{"ark:12345/x%25", "ark:12345/x%2525"},
	{"ark:12345/x%C3%A9", "ark:12345/xe"},
	{"ark:12345/x\u2212y", "ark:12345/xy"},     // U+2212 is not a hyphen look-alike
	{"ark:12345/a.c.b/d", "ark:12345/a.b.c/d"}, // only the last segment's variants are sorted
	{"ark:12345/x", "urn:example:x"},
}

func TestEquivalent(t *testing.T) {
	for _, p := range arkEquivalent {
		for _, q := range [][2]string{p, {p[1], p[0]}} {
			eq, err := normalize.Equivalent(q[0], q[1])
			if err != nil || !eq {
				t.Errorf("Equivalent(%q, %q) = %v, %v; want true", q[0], q[1], eq, err)
			}
		}
	}
	for _, p := range arkNotEquivalent {
		for _, q := range [][2]string{p, {p[1], p[0]}} {
			eq, err := normalize.Equivalent(q[0], q[1])
			if err != nil || eq {
				t.Errorf("Equivalent(%q, %q) = %v, %v; want false", q[0], q[1], eq, err)
			}
		}
	}
	// Reflexive on every table entry.
	for _, c := range arkKeyCases {
		if eq, err := normalize.Equivalent(c.in, c.key); err != nil || !eq {
			t.Errorf("Equivalent(%q, %q) = %v, %v; want true", c.in, c.key, eq, err)
		}
	}
}

func TestEquivalentErrors(t *testing.T) {
	for _, p := range [][2]string{
		{"ark:12345", "ark:12345/x"},
		{"ark:12345/x", "ark:12345"},
		{"ark:12345/x", "http://n2t.net/ark:12345/x"},
		{"ark:12345/x%G1", "ark:12345/x"},
	} {
		if _, err := normalize.Equivalent(p[0], p[1]); err == nil {
			t.Errorf("Equivalent(%q, %q): want an error", p[0], p[1])
		}
	}
}

// ---------------------------------------------------------------------------
// Accessors

type arkParts struct {
	in       string
	label    string
	naan     string
	name     string
	comps    []string
	vars     []string
	qual     string
	query    string
	frag     string
	info     bool
	shoulder string
	blade    string
}

var arkPartsCases = []arkParts{
	{in: "ark:/12345/x5wf6789", label: "ark:/", naan: "12345", name: "x5wf6789", shoulder: "x5", blade: "wf6789"},
	{in: "ark:/12345/x5wf6789/c2/s4.pdf", label: "ark:/", naan: "12345", name: "x5wf6789",
		comps: []string{"c2", "s4"}, vars: []string{"pdf"}, qual: "/c2/s4.pdf", shoulder: "x5", blade: "wf6789"},
	{in: "ARK:/12345/x5wf6789/c2/s4.pdf.en?info#p3", label: "ARK:/", naan: "12345", name: "x5wf6789",
		comps: []string{"c2", "s4"}, vars: []string{"en", "pdf"}, qual: "/c2/s4.en.pdf",
		query: "?info", frag: "#p3", info: true, shoulder: "x5", blade: "wf6789"},
	{in: "ark:12345/x5wf6789/c2/s4.en.pdf", label: "ark:", naan: "12345", name: "x5wf6789",
		comps: []string{"c2", "s4"}, vars: []string{"en", "pdf"}, qual: "/c2/s4.en.pdf", shoulder: "x5", blade: "wf6789"},
	{in: "ark:12345/ax20315.svg.en", label: "ark:", naan: "12345", name: "ax20315",
		vars: []string{"en", "svg"}, qual: ".en.svg", blade: "ax20315"}, // 'a' is not betanumeric
	{in: "ark:12345/ax20315/edition1/chapter5", label: "ark:", naan: "12345", name: "ax20315",
		comps: []string{"edition1", "chapter5"}, qual: "/edition1/chapter5", blade: "ax20315"},
	{in: "ark:/12-345/c37-009-31--", label: "ark:/", naan: "12345", name: "c3700931", shoulder: "c3", blade: "700931"},
	{in: "ark:12345/c370-0931", label: "ark:", naan: "12345", name: "c3700931", shoulder: "c3", blade: "700931"},
	{in: "Ark:ABCDE/X5wf??", label: "Ark:", naan: "abcde", name: "X5wf", query: "??", info: true, blade: "X5wf"},
	{in: "ark:12345/4бф3х1", label: "ark:", naan: "12345", name: "4%D0%B1%D1%843%D1%851", blade: "4%D0%B1%D1%843%D1%851"},
	{in: "ark:/99999/fk4gt2m?", label: "ark:/", naan: "99999", name: "fk4gt2m", query: "?", info: true, shoulder: "fk4", blade: "gt2m"},
	{in: "ark:/12345/p987654?foo=bar", label: "ark:/", naan: "12345", name: "p987654", query: "?foo=bar", shoulder: "p9", blade: "87654"},
	{in: "ark:/12345/cd456f9_87", label: "ark:/", naan: "12345", name: "cd456f9_87", shoulder: "cd4", blade: "56f9_87"},
	{in: "ark:/99166/w66d60p2", label: "ark:/", naan: "99166", name: "w66d60p2", shoulder: "w6", blade: "6d60p2"},
	// FAQ's "please don't do this": the '/' makes x5 the Name and the rest components.
	{in: "ark:/12345/x5/wf6789/c2/s4.pdf", label: "ark:/", naan: "12345", name: "x5",
		comps: []string{"wf6789", "c2", "s4"}, vars: []string{"pdf"}, qual: "/wf6789/c2/s4.pdf", shoulder: "x5", blade: ""},
	{in: "ark:12345/x-5wf", label: "ark:", naan: "12345", name: "x5wf", shoulder: "x5", blade: "wf"},
	{in: "ark:12345/bcdfghjkmnpqrstvwxz0rest", label: "ark:", naan: "12345", name: "bcdfghjkmnpqrstvwxz0rest",
		shoulder: "bcdfghjkmnpqrstvwxz0", blade: "rest"},
	{in: "ark:12345/l5x", label: "ark:", naan: "12345", name: "l5x", blade: "l5x"},    // 'l' is not betanumeric
	{in: "ark:12345/e5x", label: "ark:", naan: "12345", name: "e5x", blade: "e5x"},    // vowels are not betanumeric
	{in: "ark:12345/xyz", label: "ark:", naan: "12345", name: "xyz", blade: "xyz"},    // no digit
	{in: "ark:12345/5xyz", label: "ark:", naan: "12345", name: "5xyz", blade: "5xyz"}, // no letter before the digit
	{in: "ark:12345/x_5", label: "ark:", naan: "12345", name: "x_5", blade: "x_5"},
	{in: "ark:12345/x?info", label: "ark:", naan: "12345", name: "x", query: "?info", info: true, blade: "x"},
	{in: "ark:12345/x?INFO", label: "ark:", naan: "12345", name: "x", query: "?INFO", blade: "x"},
	{in: "ark:12345/x?info=1", label: "ark:", naan: "12345", name: "x", query: "?info=1", blade: "x"},
	{in: "ark:12345/x?infos", label: "ark:", naan: "12345", name: "x", query: "?infos", blade: "x"},
	{in: "ark:12345/x???", label: "ark:", naan: "12345", name: "x", query: "???", blade: "x"},
	{in: "ark:12345/x#frag", label: "ark:", naan: "12345", name: "x", frag: "#frag", blade: "x"},
	{in: "ark:12345/x#?info", label: "ark:", naan: "12345", name: "x", frag: "#?info", blade: "x"},
	{in: "ark:12345/x.pdf", label: "ark:", naan: "12345", name: "x", vars: []string{"pdf"}, qual: ".pdf", blade: "x"},
	{in: "ark:12345/x/c.b.a", label: "ark:", naan: "12345", name: "x", comps: []string{"c"}, vars: []string{"a", "b"}, qual: "/c.a.b", blade: "x"},
	{in: "ark:12345/x%2Fy/z", label: "ark:", naan: "12345", name: "x%2Fy", comps: []string{"z"}, qual: "/z", blade: "x%2Fy"},
	{in: "ark:12345/x.a%2Eb", label: "ark:", naan: "12345", name: "x", vars: []string{"a%2Eb"}, qual: ".a%2Eb", blade: "x"},
	{in: "ark:12345/x//c2//s4..en/", label: "ark:", naan: "12345", name: "x", comps: []string{"c2", "s4"}, vars: []string{"en"}, qual: "/c2/s4.en", blade: "x"},
}

func TestARKAccessors(t *testing.T) {
	for _, c := range arkPartsCases {
		a, err := normalize.ParseARK(c.in)
		if err != nil {
			t.Errorf("ParseARK(%q): %v", c.in, err)
			continue
		}
		check := func(what string, got, want any) {
			t.Helper()
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ParseARK(%q).%s = %#v, want %#v", c.in, what, got, want)
			}
		}
		check("Label()", a.Label(), c.label)
		check("NAAN()", a.NAAN(), c.naan)
		check("Name()", a.Name(), c.name)
		check("Components()", a.Components(), c.comps)
		check("Variants()", a.Variants(), c.vars)
		check("Qualifier()", a.Qualifier(), c.qual)
		check("Query()", a.Query(), c.query)
		check("Fragment()", a.Fragment(), c.frag)
		check("IsInfo()", a.IsInfo(), c.info)
		check("Shoulder()", a.Shoulder(), c.shoulder)
		check("Blade()", a.Blade(), c.blade)
		// Structural identities from the contract.
		if want := "ark:" + c.naan + "/" + c.name + c.qual; a.Key() != want {
			t.Errorf("ParseARK(%q).Key() = %q, want %q", c.in, a.Key(), want)
		}
		if want := a.Key() + c.query + c.frag; a.String() != want {
			t.Errorf("ParseARK(%q).String() = %q, want %q", c.in, a.String(), want)
		}
	}
}

func TestAncestors(t *testing.T) {
	type anc = normalize.Ancestor
	cases := []struct {
		in   string
		want []anc
	}{
		{"ark:12345/x5wf6789/c2/s4.en.pdf", []anc{
			{Key: "ark:12345/x5wf6789/c2/s4", Suffix: ".en.pdf"},
			{Key: "ark:12345/x5wf6789/c2", Suffix: "/s4.en.pdf"},
			{Key: "ark:12345/x5wf6789", Suffix: "/c2/s4.en.pdf"},
		}},
		{"ark:/12345/x5wf6789/c2/s4.pdf", []anc{
			{Key: "ark:12345/x5wf6789/c2/s4", Suffix: ".pdf"},
			{Key: "ark:12345/x5wf6789/c2", Suffix: "/s4.pdf"},
			{Key: "ark:12345/x5wf6789", Suffix: "/c2/s4.pdf"},
		}},
		// draft: ark:12345/ax20315/edition1/chapter5 is contained in
		// .../edition1, contained in ark:12345/ax20315.
		{"ark:12345/ax20315/edition1/chapter5", []anc{
			{Key: "ark:12345/ax20315/edition1", Suffix: "/chapter5"},
			{Key: "ark:12345/ax20315", Suffix: "/edition1/chapter5"},
		}},
		{"ark:12345/ax20315.svg.en", []anc{{Key: "ark:12345/ax20315", Suffix: ".en.svg"}}},
		{"ARK:/12-345/x5/c-2?info#f", []anc{{Key: "ark:12345/x5", Suffix: "/c2"}}},
		{"ark:/12345/x5/wf6789/c2/s4.pdf", []anc{
			{Key: "ark:12345/x5/wf6789/c2/s4", Suffix: ".pdf"},
			{Key: "ark:12345/x5/wf6789/c2", Suffix: "/s4.pdf"},
			{Key: "ark:12345/x5/wf6789", Suffix: "/c2/s4.pdf"},
			{Key: "ark:12345/x5", Suffix: "/wf6789/c2/s4.pdf"},
		}},
		{"ark:12345/x5wf6789", nil},
		{"ark:/12345/x5wf6789?info", nil},
		{"ark:12345/x5wf6789/", nil},
	}
	for _, c := range cases {
		a, err := normalize.ParseARK(c.in)
		if err != nil {
			t.Errorf("ParseARK(%q): %v", c.in, err)
			continue
		}
		got := a.Ancestors()
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseARK(%q).Ancestors() = %#v, want %#v", c.in, got, c.want)
		}
	}
	// Key+Suffix == Key() on every table entry, and every ancestor is a normal form.
	for _, c := range arkKeyCases {
		a, err := normalize.ParseARK(c.in)
		if err != nil {
			continue // reported by TestARKKey
		}
		checkAncestors(t, c.in, a)
	}
}

func checkAncestors(t *testing.T, in string, a normalize.ARK) {
	t.Helper()
	key := a.Key()
	prev := key
	// An ancestor's key is a normal form unless a non-last segment carries
	// dots (outside the draft's grammar): then Key+Suffix == Key() wins, and
	// the ancestor's own last segment keeps its unsorted dots.
	checkNormal := !strings.Contains(key[:strings.LastIndexByte(key, '/')], ".")
	for i, anc := range a.Ancestors() {
		if anc.Key+anc.Suffix != key {
			t.Errorf("ParseARK(%q).Ancestors()[%d] = %+v: Key+Suffix != %q", in, i, anc, key)
		}
		if anc.Suffix == "" || len(anc.Key) >= len(prev) {
			t.Errorf("ParseARK(%q).Ancestors()[%d] = %+v: not a strict ancestor of %q", in, i, anc, prev)
		}
		prev = anc.Key
		b, err := normalize.ParseARK(anc.Key)
		if !checkNormal {
			continue
		}
		if err != nil {
			t.Errorf("ParseARK(%q).Ancestors()[%d].Key = %q does not parse: %v", in, i, anc.Key, err)
		} else if b.Key() != anc.Key {
			t.Errorf("ParseARK(%q).Ancestors()[%d].Key = %q is not normal (%q)", in, i, anc.Key, b.Key())
		}
	}
}

// ---------------------------------------------------------------------------
// Refusals

type errCase struct {
	in     string
	want   []error // acceptable sentinels (usually exactly one)
	lo, hi int     // acceptable Offset range, inclusive
}

func at(in string, want error, off int) errCase {
	return errCase{in, []error{want}, off, off}
}

func within(in string, want error, lo, hi int) errCase {
	return errCase{in, []error{want}, lo, hi}
}

var (
	errNI  = normalize.ErrNotIdentifier
	errNA  = normalize.ErrBadNAAN
	errPct = normalize.ErrPercentEncoding
	errCtl = normalize.ErrControl
	errBdi = normalize.ErrBidi
)

var arkErrCases = []errCase{
	// Not an ARK: no Name (draft: "ark:12345 is not an ARK").
	within("ark:12345", errNI, 0, 9),
	within("ark:12345/", errNI, 0, 10),
	within("ark:12345/---", errNI, 0, 13),
	within("ark:12345/%2d", errNI, 0, 13),
	within("ark:12345/\u2013", errNI, 0, 13),
	within("ark:12345//", errNI, 0, 11),
	within("ark:12345/?info", errNI, 0, 15),
	within("ark:12345/#f", errNI, 0, 12),
	{"ark:/12345", []error{errNI, errNA}, 0, 10},
	// Not an ARK: wrong or missing scheme.
	at("", errNI, 0),
	at("ark", errNI, 0),
	{"ark:", []error{errNI, errNA}, 0, 4}, // no NAAN and no Name: either reading
	at("arc:12345/x", errNI, 0),
	at("http://n2t.net/ark:12345/x", errNI, 0),
	at("urn:example:x", errNI, 0),
	at(" ark:12345/x", errNI, 0),
	at("12345/x", errNI, 0),
	// Characters not allowed in an ARK.
	at("ark:12345/x,y", errNI, 11),
	at("ark:12345/x y", errNI, 11),
	at("ark:12345/x\"y", errNI, 11),
	at("ark:12345/x<y", errNI, 11),
	at("ark:12345/x>y", errNI, 11),
	at("ark:12345/x\\y", errNI, 11),
	at("ark:12345/x^y", errNI, 11),
	at("ark:12345/x`y", errNI, 11),
	at("ark:12345/x{y", errNI, 11),
	at("ark:12345/x|y", errNI, 11),
	at("ark:12345/x}y", errNI, 11),
	at("ark:12345/x[y", errNI, 11),
	at("ark:12345/x]y", errNI, 11),
	at("ark:12345/x!y", errNI, 11),
	at("ark:12345/x'y", errNI, 11),
	at("ark:12345/x(y", errNI, 11),
	at("ark:12345/x;y", errNI, 11),
	at("ark:12345/x:y", errNI, 11),
	at("ark:12345/x&y", errNI, 11),
	at("ark:12345/x ", errNI, 11),
	at("ark:12345/x/c2/s4.p,df", errNI, 19),
	// Invalid raw UTF-8.
	at("ark:12345/x\xffy", errNI, 11),
	at("ark:12345/x\xc3", errNI, 11),
	at("ark:12345/x\xc3(", errNI, 11),
	at("ark:12345/x\xed\xa0\x80", errNI, 11), // UTF-16 surrogate
	at("ark:12345/x\xc0\xaf", errNI, 11),     // overlong '/'

	// Bad NAAN: letters and digits only after repairs.
	within("ark:12.345/x", errNA, 4, 6),
	within("ark:12%2F45/x", errNA, 4, 6),
	within("ark:12%2f45/x", errNA, 4, 6),
	within("ark:12%2E45/x", errNA, 4, 6),
	within("ark:/x", errNI, 4, 6), // a NAAN "x" without Name, like "ark:12345": a pseudo-ARK
	within("ark:12=45/x", errNA, 4, 6),
	within("ark:12_45/x", errNA, 4, 6),
	within("ark:12~45/x", errNA, 4, 6),
	within("ark:1%5F2/x", errNA, 4, 5),
	within("ark:---/x", errNA, 4, 7),
	within("ark:/---/x", errNA, 4, 8),
	within("ark:12é45/x", errNA, 4, 6),
	within("ark:12%C3%A945/x", errNA, 4, 6),

	// Bad percent-encoding: the Offset is the '%'.
	at("ark:12345/x%G1", errPct, 11),
	at("ark:12345/x%1G", errPct, 11),
	at("ark:12345/x%4", errPct, 11),
	at("ark:12345/x%", errPct, 11),
	at("ark:12345/x%%41", errPct, 11),
	at("ark:12345/x%2-d", errPct, 11),
	at("ark:12345/x% 1", errPct, 11),
	at("ark:1%g345/x", errPct, 5),
	at("ark:12345/x/c%zz.pdf", errPct, 13),
	at("ark:12345/x.p%dg", errPct, 13),

	// Controls U+0000-U+001F, U+007F-U+009F, raw or percent-encoded.
	at("ark:12345/x\x00y", errCtl, 11),
	at("ark:12345/x\ty", errCtl, 11),
	at("ark:12345/x\ny", errCtl, 11),
	at("ark:12345/x\ry", errCtl, 11),
	at("ark:12345/x\x1fy", errCtl, 11),
	at("ark:12345/x\x7fy", errCtl, 11),
	at("ark:12345/x\u0080y", errCtl, 11),
	at("ark:12345/x\u0085y", errCtl, 11),
	at("ark:12345/x\u009fy", errCtl, 11),
	at("ark:12345/x%00y", errCtl, 11),
	at("ark:12345/x%0Ay", errCtl, 11),
	at("ark:12345/x%0ay", errCtl, 11),
	at("ark:12345/x%1Fy", errCtl, 11),
	at("ark:12345/x%7Fy", errCtl, 11),
	at("ark:12345/x%7fy", errCtl, 11),
	at("ark:12345/x%C2%80y", errCtl, 11),
	at("ark:12345/x%C2%85y", errCtl, 11),
	at("ark:12345/x%c2%9fy", errCtl, 11),
	at("ark:12345/x/c2/s4.p%0Adf", errCtl, 19),
	// A hyphen is inert, so %C2-%85 is %C2%85 (NEL).
	within("ark:12345/x%C2-%85", errCtl, 11, 15),

	// Bidi controls (unicode.Bidi_Control), raw or percent-encoded.
	at("ark:12345/x\u202ey", errBdi, 11),
	at("ark:12345/x\u202ay", errBdi, 11),
	at("ark:12345/x\u200ey", errBdi, 11),
	at("ark:12345/x\u200fy", errBdi, 11),
	at("ark:12345/x\u2066y", errBdi, 11),
	at("ark:12345/x\u2069y", errBdi, 11),
	at("ark:12345/x\u061cy", errBdi, 11),
	at("ark:12345/x%E2%80%AEy", errBdi, 11),
	at("ark:12345/x%e2%80%aey", errBdi, 11),
	at("ark:12345/x%E2%80%8Ey", errBdi, 11),
	at("ark:12345/x%E2%81%A6y", errBdi, 11),
	at("ark:12345/x%D8%9Cy", errBdi, 11),
	at("ark:12345/x.en\u202e", errBdi, 14),
	within("ark:12345/x%E2-%80%AE", errBdi, 11, 18),
}

func checkErr(t *testing.T, call string, err error, c errCase) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want %v", call, c.want)
		return
	}
	ok := false
	for _, w := range c.want {
		if errors.Is(err, w) {
			ok = true
		}
	}
	if !ok {
		t.Errorf("%s: error %v, want %v", call, err, c.want)
	}
	var e *normalize.Error
	if !errors.As(err, &e) {
		t.Errorf("%s: error %T %v is not a *normalize.Error", call, err, err)
		return
	}
	if e.Offset < c.lo || e.Offset > c.hi {
		if c.lo == c.hi {
			t.Errorf("%s: Offset = %d, want %d (error %v)", call, e.Offset, c.lo, err)
		} else {
			t.Errorf("%s: Offset = %d, want in [%d, %d] (error %v)", call, e.Offset, c.lo, c.hi, err)
		}
	}
	if err.Error() == "" {
		t.Errorf("%s: empty Error()", call)
	}
}

func TestARKErrors(t *testing.T) {
	for _, c := range arkErrCases {
		a, err := normalize.ParseARK(c.in)
		if err == nil {
			t.Errorf("ParseARK(%q) = %q, want error %v", c.in, a.String(), c.want)
			continue
		}
		checkErr(t, fmt.Sprintf("ParseARK(%q)", c.in), err, c)
		if strings.HasPrefix(c.in, "urn:") {
			continue // a valid URN for Parse, Key and Normalize
		}
		_, err = normalize.Key(c.in)
		checkErr(t, fmt.Sprintf("Key(%q)", c.in), err, c)
		_, err = normalize.Normalize(c.in)
		checkErr(t, fmt.Sprintf("Normalize(%q)", c.in), err, c)
		_, err = normalize.Parse(c.in)
		checkErr(t, fmt.Sprintf("Parse(%q)", c.in), err, c)
	}
}

// ---------------------------------------------------------------------------
// Length limit

func TestMaxLength(t *testing.T) {
	const prefix = "ark:12345/" // 10 code points
	ascii := func(n int) string { return prefix + strings.Repeat("b", n-len(prefix)) }
	cyr := func(n int) string { return prefix + strings.Repeat("б", n-len(prefix)) }

	// No ARK of 255 code points or fewer (plus ?, ?? or ?info) may be
	// refused for length, whatever MaxLength says.
	for _, s := range []string{ascii(255), cyr(255), ascii(11)} {
		for _, max := range []int{0, 1, 10, 254, 255} {
			for _, tail := range []string{"", "?", "??", "?info", "?info#frag", "#frag"} {
				p := normalize.Parser{MaxLength: max}
				in := s + tail
				if _, err := p.ParseARK(in); err != nil {
					t.Errorf("Parser{MaxLength: %d}.ParseARK(<%d code points>%s): %v", max, len([]rune(s)), tail, err)
				}
				if _, err := p.Key(in); err != nil {
					t.Errorf("Parser{MaxLength: %d}.Key(<%d code points>%s): %v", max, len([]rune(s)), tail, err)
				}
				if _, err := p.Parse(in); err != nil {
					t.Errorf("Parser{MaxLength: %d}.Parse(<%d code points>%s): %v", max, len([]rune(s)), tail, err)
				}
			}
		}
	}
	// Over the limit: ErrTooLong. MaxLength below 255 counts as 255.
	for _, c := range []struct {
		s   string
		max int
	}{
		{ascii(256), 255}, {ascii(256), 10}, {ascii(256), 1}, {ascii(1000), 255},
		{cyr(256), 255}, {cyr(256), 10},
		{ascii(301), 300},
		{ascii(256) + "?info", 255},
	} {
		p := normalize.Parser{MaxLength: c.max}
		errc := errCase{c.s, []error{normalize.ErrTooLong}, 0, len(c.s)}
		_, err := p.ParseARK(c.s)
		checkErr(t, fmt.Sprintf("Parser{MaxLength: %d}.ParseARK(<%d code points>)", c.max, len([]rune(c.s))), err, errc)
		_, err = p.Key(c.s)
		checkErr(t, fmt.Sprintf("Parser{MaxLength: %d}.Key(<%d code points>)", c.max, len([]rune(c.s))), err, errc)
		_, err = p.Parse(c.s)
		checkErr(t, fmt.Sprintf("Parser{MaxLength: %d}.Parse(<%d code points>)", c.max, len([]rune(c.s))), err, errc)
	}
	// Within a larger limit, and without a limit.
	for _, c := range []struct {
		s   string
		max int
	}{
		{ascii(256), 0}, {ascii(256), 256}, {ascii(300), 300}, {cyr(300), 300}, {ascii(5000), 0},
	} {
		if _, err := (normalize.Parser{MaxLength: c.max}).ParseARK(c.s); err != nil {
			t.Errorf("Parser{MaxLength: %d}.ParseARK(<%d code points>): %v", c.max, len([]rune(c.s)), err)
		}
	}
	if _, err := normalize.ParseARK(ascii(5000)); err != nil {
		t.Errorf("ParseARK(<5000 code points>) (no limit): %v", err)
	}
	// The key is unchanged by the limit.
	a, err := normalize.Parser{MaxLength: 255}.ParseARK(cyr(255) + "?info")
	if err == nil {
		want := prefix + strings.Repeat("%D0%B1", 245)
		if a.Key() != want || a.Query() != "?info" {
			t.Errorf("Parser{MaxLength: 255}.ParseARK(<255 Cyrillic>?info) = %q %q", a.Key(), a.Query())
		}
	}
}
