// Package csl writes a metadata.Record as CSL-JSON, the input of citation
// processors (citeproc-js, Zotero, Pandoc), valid against the CSL data
// schema (csl-data.json, CSL 1.0.2). As DOI content negotiation does, the
// document is one item, not the schema's array of items.
//
// CSL has no code for an unknown value: what the record lacks is left
// out. A withdrawn record has status "withdrawn" and the withdrawal
// statement as its note.
package csl

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/caddy-ark/caddy-ark/metadata"
)

// MediaType is the media type of CSL-JSON.
const MediaType = "application/vnd.citationstyles.csl+json"

// Item is one CSL-JSON item, as far as a Record fills it.
type Item struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Title     string `json:"title,omitempty"`
	Author    []Name `json:"author,omitempty"`
	Issued    *Date  `json:"issued,omitempty"`
	Publisher string `json:"publisher,omitempty"`
	Genre     string `json:"genre,omitempty"`
	Abstract  string `json:"abstract,omitempty"`
	Language  string `json:"language,omitempty"`
	Keyword   string `json:"keyword,omitempty"`
	URL       string `json:"URL,omitempty"`
	Status    string `json:"status,omitempty"`
	Note      string `json:"note,omitempty"`
}

// Name is a CSL name: family and given for a person, literal otherwise.
type Name struct {
	// Family and Given are a person's name parts.
	Family string `json:"family,omitempty"`
	Given  string `json:"given,omitempty"`
	// Literal is a name written otherwise.
	Literal string `json:"literal,omitempty"`
}

// Date is a CSL date: its parts, year first.
type Date struct {
	// Parts are the date's parts, one date of year[, month[, day]].
	Parts [][]int `json:"date-parts"`
}

// types maps DataCite's resourceTypeGeneral to CSL's item types: DataCite
// content negotiation's mapping (bolognese's DC_TO_CP_TRANSLATIONS), with
// the types CSL 1.0.2 added (collection, document, event, software,
// standard, thesis, periodical, speech) where bolognese has none, and
// document, CSL's type for what fits no other, for Text (bolognese: report)
// and the rest.
var types = map[string]string{
	"Audiovisual": "motion_picture", "Book": "book", "BookChapter": "chapter", "Collection": "collection",
	"ComputationalNotebook": "software", "ConferencePaper": "paper-conference", "ConferenceProceeding": "book",
	"DataPaper": "article-journal", "Dataset": "dataset", "Dissertation": "thesis", "Event": "event", "Image": "graphic",
	"Journal": "periodical", "JournalArticle": "article-journal", "PeerReview": "review", "Poster": "speech",
	"Preprint": "article", "Presentation": "speech", "Report": "report", "Software": "software", "Sound": "song",
	"Standard": "standard",
}

// Type is the CSL item type of a DataCite resource type: "document" when
// it has no closer one.
func Type(t metadata.ResourceType) string {
	if csl := types[t.General]; csl != "" {
		return csl
	}
	return "document"
}

// NewItem is the CSL item of r.
func NewItem(r *metadata.Record) *Item {
	it := &Item{ID: r.ID, Type: Type(r.Type), Title: r.Title, Publisher: r.Publisher, Genre: r.Type.Specific,
		Abstract: r.Description, Language: r.Language, Keyword: strings.Join(r.Subjects, ", "), URL: r.URL}
	for _, c := range r.Creators {
		if c.Personal() {
			it.Author = append(it.Author, Name{Family: c.Family, Given: c.Given})
		} else {
			it.Author = append(it.Author, Name{Literal: c.Name})
		}
	}
	if parts := r.Date.Parts(); parts != nil {
		it.Issued = &Date{Parts: [][]int{parts}}
	}
	if wd := r.Withdrawal; wd != nil {
		it.Status, it.Note = "withdrawn", wd.Statement()
	}
	return it
}

// Write writes r as a CSL-JSON item.
func Write(w io.Writer, r *metadata.Record) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(NewItem(r))
}
