package metadata_test

import (
	"io"
	"testing"

	"github.com/caddy-ark/caddy-ark/metadata"
)

// benchMeta is an entry with every documented name, as a table or an
// import holds it.
var benchMeta = map[string]string{
	"who":         "Curie, Marie <https://orcid.org/0000-0002-1825-0097>; Skłodowska, Bronisława; Example Museum <https://ror.org/05gq02987>",
	"what":        "Field notes on the moth collection",
	"when":        "1903-05-17",
	"type":        "Dataset/Field notes",
	"license":     "CC-BY-4.0",
	"description": "Notes taken in the field, with sketches.",
	"language":    "en",
	"subject":     "moths; Lepidoptera; field notes",
	"item":        "https://repo.example.org/x5wf6789.csv text/csv",
}

var benchID = metadata.Identifier{ID: "ark:12345/x5wf6789", URL: "https://ark.example.org/ark:12345/x5wf6789",
	Resolver: "https://ark.example.org/", Target: "https://repo.example.org/x5wf6789", Status: 302}

// BenchmarkNew measures building a record from an entry's meta and
// defaults.
func BenchmarkNew(b *testing.B) {
	defaults := metadata.Defaults{"publisher": "Example Museum"}
	b.ReportAllocs()
	for b.Loop() {
		metadata.New(benchID, benchMeta, defaults, "Example Site")
	}
}

// BenchmarkWrite measures writing a record in each format.
func BenchmarkWrite(b *testing.B) {
	r := metadata.New(benchID, benchMeta, nil, "Example Museum")
	for name, write := range writers {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := write(io.Discard, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
