// Package ris writes a metadata.Record as RIS, the tagged format reference
// managers (EndNote, Zotero, Mendeley) import: one reference from "TY  - "
// to "ER  - ", each line a two-letter tag, two spaces, "-", a space and a
// value, lines ending in CR LF, text in UTF-8.
//
// RIS has no code for an unknown value: what the record lacks is left out.
// A withdrawn record's N1 note is the withdrawal statement.
package ris

import (
	"io"
	"strings"

	"github.com/caddy-ark/caddy-ark/metadata"
)

// MediaType is the media type of RIS.
const MediaType = "application/x-research-info-systems"

// types maps DataCite's resourceTypeGeneral to RIS reference types;
// anything else is GEN.
var types = map[string]string{
	"Audiovisual": "VIDEO", "Book": "BOOK", "BookChapter": "CHAP", "ConferencePaper": "CPAPER",
	"ConferenceProceeding": "CONF", "Dataset": "DATA", "Dissertation": "THES", "Image": "FIGURE",
	"JournalArticle": "JOUR", "DataPaper": "JOUR", "Report": "RPRT", "Software": "COMP", "Sound": "SOUND",
	"Standard": "STAND", "Collection": "AGGR", "Preprint": "INPR",
}

// Type is the RIS reference type of a DataCite resource type.
func Type(t metadata.ResourceType) string {
	if ris := types[t.General]; ris != "" {
		return ris
	}
	return "GEN"
}

// Write writes r as one RIS reference.
func Write(w io.Writer, r *metadata.Record) error {
	var b strings.Builder
	tag := func(name, value string) {
		if value = oneLine(value); value != "" {
			b.WriteString(name + "  - " + value + "\r\n")
		}
	}
	tag("TY", Type(r.Type))
	tag("ID", r.ID)
	for _, c := range r.Creators {
		tag("AU", c.Name)
	}
	tag("TI", r.Title)
	tag("PY", r.Date.YearString())
	if r.Date.Month != 0 {
		tag("DA", strings.ReplaceAll(r.Date.ISO(), "-", "/"))
	}
	tag("PB", r.Publisher)
	tag("M3", r.Type.Specific)
	tag("AB", r.Description)
	for _, s := range r.Subjects {
		tag("KW", s)
	}
	tag("LA", r.Language)
	tag("UR", r.URL)
	if wd := r.Withdrawal; wd != nil {
		tag("N1", wd.Statement())
	}
	b.WriteString("ER  - \r\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// oneLine is v with its line breaks, of any kind, made spaces: a RIS
// value is one line, and readers that break lines at U+2028 or NEL would
// read what follows as a tag of its own.
func oneLine(v string) string { return strings.TrimSpace(metadata.OneLine(v)) }
