package normalize_test

import (
	"testing"

	"github.com/caddy-ark/caddy-ark/normalize"
)

var (
	sinkString string
	sinkAnc    []normalize.Ancestor
)

// benchKey measures Key(s), which must give want.
func benchKey(b *testing.B, s, want string) {
	b.ReportAllocs()
	for b.Loop() {
		k, err := normalize.Key(s)
		if err != nil {
			b.Fatal(err)
		}
		sinkString = k
	}
	if sinkString != want {
		b.Fatalf("Key(%q) = %q, want %q", s, sinkString, want)
	}
}

// Goal: <= 100 ns/op, 0 allocs/op (an already-normal key can be returned as is).
func BenchmarkKeyNormalARK(b *testing.B) {
	benchKey(b, "ark:12345/x5wf6789/c2/s4.en.pdf", "ark:12345/x5wf6789/c2/s4.en.pdf")
}

// Goal: <= 400 ns/op. Classic label, hyphens in NAAN and Name, %-encodings
// (lowercase hex, unreserved, hyphen), unsorted and duplicated variants.
func BenchmarkKeyMessyARK(b *testing.B) {
	benchKey(b, "ARK:/12-345/x5-wf%36789/c%32/s4.pdf.en%2d.pdf?info", "ark:12345/x5wf6789/c2/s4.en.pdf")
}

func BenchmarkKeyURN(b *testing.B) {
	benchKey(b, "URN:EXAMPLE:a123%2cz456?=xyz", "urn:example:a123%2Cz456")
}

func BenchmarkParseARKAncestors(b *testing.B) {
	const s = "ark:/12345/x5wf6789/c2/s4.pdf.en?info"
	b.ReportAllocs()
	for b.Loop() {
		a, err := normalize.ParseARK(s)
		if err != nil {
			b.Fatal(err)
		}
		sinkAnc = a.Ancestors()
	}
}
