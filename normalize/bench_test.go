package normalize_test

import (
	"testing"

	"github.com/caddy-ark/caddy-ark/normalize"
)

var (
	sinkString string
	sinkAnc    []normalize.Ancestor
)

// Goal: <= 100 ns/op, 0 allocs/op (an already-normal key can be returned as is).
func BenchmarkKeyNormalARK(b *testing.B) {
	const s = "ark:12345/x5wf6789/c2/s4.en.pdf"
	b.ReportAllocs()
	for b.Loop() {
		k, err := normalize.Key(s)
		if err != nil {
			b.Fatal(err)
		}
		sinkString = k
	}
}

// Goal: <= 400 ns/op. Classic label, hyphens in NAAN and Name, %-encodings
// (lowercase hex, unreserved, hyphen), unsorted and duplicated variants.
func BenchmarkKeyMessyARK(b *testing.B) {
	const s = "ARK:/12-345/x5-wf%36789/c%32/s4.pdf.en%2d.pdf?info"
	const want = "ark:12345/x5wf6789/c2/s4.en.pdf"
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

func BenchmarkKeyURN(b *testing.B) {
	const s = "URN:EXAMPLE:a123%2cz456?=xyz"
	b.ReportAllocs()
	for b.Loop() {
		k, err := normalize.Key(s)
		if err != nil {
			b.Fatal(err)
		}
		sinkString = k
	}
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
