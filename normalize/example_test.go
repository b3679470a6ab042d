package normalize_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/caddy-ark/caddy-ark/normalize"
)

func Example() {
	// Parse an ARK as found in the wild: classic label, a hyphen, unsorted
	// variants and an inflection.
	a, err := normalize.ParseARK("ARK:/12345/x5wf-6789/c2/s4.pdf.en?info")
	if err != nil {
		panic(err)
	}
	fmt.Println(a.Key())    // the lookup key
	fmt.Println(a.String()) // the full normal form
	fmt.Println(a.NAAN(), a.Shoulder(), a.Blade(), a.Components(), a.Variants(), a.IsInfo())
	for _, anc := range a.Ancestors() {
		fmt.Printf("%s + %s\n", anc.Key, anc.Suffix)
	}

	// Hyphens are identity-inert.
	k, _ := normalize.Key("ark:/12-345/c37-009-31--")
	fmt.Println(k)
	eq, _ := normalize.Equivalent("ark:12345/c3700931", "ark:12345/c370-0931")
	fmt.Println(eq)
	// The case of the Name is significant.
	eq, _ = normalize.Equivalent("ark:12345/x5", "ark:12345/X5")
	fmt.Println(eq)

	// URNs compare by RFC 8141 URN-equivalence.
	k, _ = normalize.Key("URN:EXAMPLE:a123%2cz456?=xyz")
	fmt.Println(k)

	// Output:
	// ark:12345/x5wf6789/c2/s4.en.pdf
	// ark:12345/x5wf6789/c2/s4.en.pdf?info
	// 12345 x5 wf6789 [c2 s4] [en pdf] true
	// ark:12345/x5wf6789/c2/s4 + .en.pdf
	// ark:12345/x5wf6789/c2 + /s4.en.pdf
	// ark:12345/x5wf6789 + /c2/s4.en.pdf
	// ark:12345/c3700931
	// true
	// false
	// urn:example:a123%2Cz456
}

func ExampleParser() {
	// A Parser bounds the length; the package functions use the default.
	_, err := normalize.Parser{MaxLength: 1024}.ParseARK("ark:12345/" + strings.Repeat("x", 2000))
	fmt.Println(errors.Is(err, normalize.ErrTooLong))

	// Every refusal is a *normalize.Error: its kind, for errors.Is, and the
	// byte offset of the problem.
	_, err = normalize.ParseARK("ark:12345/x5\u202ewf")
	var e *normalize.Error
	if errors.As(err, &e) {
		fmt.Println(errors.Is(err, normalize.ErrBidi), e.Offset)
	}
	fmt.Println(err)

	// Output:
	// true
	// true 12
	// bidirectional formatting character at byte 12: bidirectional formatting character U+202E is not allowed
}
