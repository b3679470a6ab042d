package ark

import (
	"bytes"
	"io"

	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/metadata/bibtex"
	"github.com/caddy-ark/caddy-ark/metadata/citation"
	"github.com/caddy-ark/caddy-ark/metadata/csl"
	"github.com/caddy-ark/caddy-ark/metadata/datacite"
	"github.com/caddy-ark/caddy-ark/metadata/ris"
	"github.com/caddy-ark/caddy-ark/metadata/schemaorg"
	"github.com/caddy-ark/caddy-ark/metadata/turtle"
	"github.com/caddy-ark/caddy-ark/negotiate"
	"github.com/caddy-ark/caddy-ark/signpost"
)

// metadataFormat is a representation of an identifier's metadata that
// its URL and ?info answer by content negotiation, and "?info=<name>"
// answers for clients that cannot set Accept.
type metadataFormat struct {
	signpost.Format
	// aliases are other media types it is asked for by, and answers with.
	aliases []string
	// write renders it. params are the Accept parameters of its media
	// range ("style=apa"), or the query's for ?info=<name>.
	write func(rec *metadata.Record, s *signpost.Subject, params string) ([]byte, error)
	// writeHTML, when set, renders it as an HTML fragment, which its own
	// URL answers (text/html) to an Accept that prefers it: a browser
	// following a link to it. An ARK's own URL never negotiates it, where
	// text/html is what a browser asks of every page.
	writeHTML func(rec *metadata.Record, params string) ([]byte, error)
}

// mediaTypes returns the media types it answers with, the first its own.
func (f *metadataFormat) mediaTypes() []string {
	return append([]string{f.MediaType}, f.aliases...)
}

// urlTypes returns the media types its own URL answers with by Accept,
// the first its own: mediaTypes, and text/html with writeHTML.
func (f *metadataFormat) urlTypes() []string {
	if f.writeHTML != nil {
		return append(f.mediaTypes(), "text/html")
	}
	return f.mediaTypes()
}

// metadataFormats are the formats every identifier answers in, in order
// of preference when a client accepts several equally.
var metadataFormats = []metadataFormat{
	{Format: signpost.Format{Name: "datacite", MediaType: datacite.MediaType}, write: record(datacite.Write)},
	{Format: signpost.Format{Name: "schemaorg", MediaType: schemaorg.MediaType}, aliases: []string{schemaorg.VendorMediaType},
		write: record(schemaorg.Write)},
	{Format: signpost.Format{Name: "csl", MediaType: csl.MediaType}, write: record(csl.Write)},
	{Format: signpost.Format{Name: "bibtex", MediaType: bibtex.MediaType}, write: record(bibtex.Write)},
	{Format: signpost.Format{Name: "ris", MediaType: ris.MediaType}, write: record(ris.Write)},
	{Format: signpost.Format{Name: "citation", MediaType: citation.MediaType}, write: writeCitation, writeHTML: writeCitationHTML},
	{Format: signpost.Format{Name: "turtle", MediaType: turtle.MediaType}, write: record(turtle.Write)},
	{Format: signpost.Format{Name: "linkset-json", MediaType: signpost.LinksetJSON},
		write: func(_ *metadata.Record, s *signpost.Subject, _ string) ([]byte, error) {
			return s.LinksetJSONBody(), nil
		}},
	{Format: signpost.Format{Name: "linkset", MediaType: signpost.LinksetText},
		write: func(_ *metadata.Record, s *signpost.Subject, _ string) ([]byte, error) {
			return s.LinksetTextBody(), nil
		}},
}

// defaultAdvertised are the formats whose describedby links the Link
// header of an identifier with metadata carries when the configuration
// names none (one without metadata advertises only ?info): with cite-as,
// the linksets, types, licence, an item and a few authors, they stay under
// signpost.MaxHeaderBytes for identifiers of usual length.
var defaultAdvertised = []string{"datacite", "schemaorg", "bibtex"}

// formatNamed returns the format called name, or nil.
func formatNamed(name string) *metadataFormat {
	for i := range metadataFormats {
		if metadataFormats[i].Name == name {
			return &metadataFormats[i]
		}
	}
	return nil
}

// record adapts a format's Write, which reads the record alone.
func record(write func(io.Writer, *metadata.Record) error) func(*metadata.Record, *signpost.Subject, string) ([]byte, error) {
	return func(rec *metadata.Record, _ *signpost.Subject, _ string) ([]byte, error) {
		var b bytes.Buffer
		err := write(&b, rec)
		return b.Bytes(), err
	}
}

// writeCitation writes a formatted citation in the style that params
// name (citation.DefaultStyle when none).
func writeCitation(rec *metadata.Record, _ *signpost.Subject, params string) ([]byte, error) {
	var b bytes.Buffer
	err := citation.Write(&b, rec, citationStyle(params))
	return b.Bytes(), err
}

// writeCitationHTML writes the citation of writeCitation as HTML.
func writeCitationHTML(rec *metadata.Record, params string) ([]byte, error) {
	var b bytes.Buffer
	err := citation.WriteHTML(&b, rec, citationStyle(params))
	return b.Bytes(), err
}

// citationStyle returns the style that params name, citation.DefaultStyle
// when none.
func citationStyle(params string) string {
	if style := negotiate.Param(params, "style"); style != "" {
		return style
	}
	return citation.DefaultStyle
}
