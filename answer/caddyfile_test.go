package answer_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/answer"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// next returns a dispenser at the first token of input, as the ark block
// hands a subdirective to its reader.
func next(input string) *caddyfile.Dispenser {
	d := caddyfile.NewTestDispenser(input)
	d.Next()
	return d
}

func TestSignpostingSyntax(t *testing.T) {
	var off bool
	var formats []string
	if err := answer.UnmarshalSignposting(next("signposting off"), &off, &formats); err != nil || !off {
		t.Errorf("signposting off: %v, off %v", err, off)
	}
	off = false
	if err := answer.UnmarshalSignposting(next("signposting {\n\tformats bibtex ris\n}"), &off, &formats); err != nil || off || !slices.Equal(formats, []string{"bibtex", "ris"}) {
		t.Errorf("formats: %v, off %v, %v", err, off, formats)
	}
	for input, want := range map[string]string{
		"signposting on":                       `signposting: "on": want off, or a block`,
		"signposting {\n\tformats nonsense\n}": `signposting: formats: "nonsense" is not a metadata format`,
		"signposting {\n\tstyle apa\n}":        `signposting: unknown subdirective "style"`,
	} {
		if err := answer.UnmarshalSignposting(next(input), &off, &formats); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %s", input, err, want)
		}
	}
}

func TestNegotiateSyntax(t *testing.T) {
	var off bool
	if err := answer.UnmarshalNegotiate(next("negotiate off"), &off); err != nil || !off {
		t.Errorf("negotiate off: %v, %v", err, off)
	}
	if err := answer.UnmarshalNegotiate(next("negotiate on"), &off); err == nil || !strings.Contains(err.Error(), "the only setting is off") {
		t.Errorf("negotiate on: %v", err)
	}
}

func TestMetadataDefaultsSyntax(t *testing.T) {
	var ds []answer.MetadataDefaults
	if err := answer.UnmarshalMetadataDefaults(next("metadata_defaults ark:/12345/x5 {\n\tpublisher \"Example Museum\"\n\tlicense CC0-1.0\n}"), &ds); err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || ds[0].Prefix != "ark:/12345/x5" || ds[0].Meta["publisher"] != "Example Museum" || ds[0].Meta["license"] != "CC0-1.0" {
		t.Errorf("read %+v", ds)
	}
	for input, want := range map[string]string{
		"metadata_defaults ark:12345/x5 {\n\ttype Text\n}": "which already has defaults",
		"metadata_defaults ark:12345 {\n\ttype\n}":         "type: want a value (quote it)",
		"metadata_defaults ark:12345 {\n\ttype a b\n}":     "type: want one value (quote it)",
		"metadata_defaults ark:12345 {\n}":                 "no value",
	} {
		if err := answer.UnmarshalMetadataDefaults(next(input), &ds); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %s", input, err, want)
		}
	}
}
