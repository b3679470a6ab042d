// Package bibtex writes a metadata.Record as a BibTeX entry, as DOI
// content negotiation answers application/x-bibtex.
//
// Values are written for TeX: its specials are escaped (\& \% \$ \# \_ \{
// \} as themselves, ~ as \textasciitilde{}, ^ as \textasciicircum{}, \ as
// $\backslash$; braces as \textbraceleft{} and \textbraceright{} in a
// value whose braces do not balance, since BibTeX counts escaped braces
// too), line breaks become spaces, and other characters, non-ASCII
// ones included, are kept as UTF-8 (read by biber and bibtexu, and by
// BibTeX with inputenc). The url field is written as it is, since styles
// read it verbatim. A creator that is not a "Family, Given" name is braced,
// so that BibTeX does not split it. The key is the identifier, with
// characters a key may not hold replaced by "-".
//
// BibTeX has no code for an unknown value: what the record lacks is left
// out. A withdrawn record's note is the withdrawal statement.
package bibtex

import (
	"io"
	"strings"

	"github.com/caddy-ark/caddy-ark/metadata"
)

// MediaType is the media type of BibTeX.
const MediaType = "application/x-bibtex"

// entryTypes maps DataCite's resourceTypeGeneral to BibTeX's entry types;
// anything else is @misc.
var entryTypes = map[string]string{
	"Book": "book", "BookChapter": "inbook", "ConferencePaper": "inproceedings", "ConferenceProceeding": "proceedings",
	"Dissertation": "phdthesis", "JournalArticle": "article", "DataPaper": "article", "Report": "techreport",
}

// EntryType is the BibTeX entry type of a DataCite resource type.
func EntryType(t metadata.ResourceType) string {
	if e := entryTypes[t.General]; e != "" {
		return e
	}
	return "misc"
}

// urlBraces %-encodes the braces of a URL, which would end the field.
var urlBraces = strings.NewReplacer("{", "%7B", "}", "%7D")

// months are BibTeX's month macros.
var months = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

// Write writes r as a BibTeX entry.
func Write(w io.Writer, r *metadata.Record) error {
	var b strings.Builder
	b.WriteString("@" + EntryType(r.Type) + "{" + Key(r.ID))
	field := func(name, value string) {
		if value != "" {
			b.WriteString(",\n  " + name + " = {" + value + "}")
		}
	}
	var authors []string
	for _, c := range r.Creators {
		authors = append(authors, name(c))
	}
	field("author", strings.Join(authors, " and "))
	field("title", Escape(r.Title))
	field("publisher", Escape(r.Publisher))
	field("year", r.Date.YearString())
	if r.Date.Month != 0 {
		b.WriteString(",\n  month = " + months[r.Date.Month-1])
	}
	field("url", urlBraces.Replace(r.URL))
	field("abstract", Escape(r.Description))
	field("keywords", Escape(strings.Join(r.Subjects, ", ")))
	field("language", Escape(r.Language))
	license := r.License.URI
	if r.License.SPDX != "" {
		license = r.License.SPDX
	}
	field("copyright", Escape(license+r.License.Text))
	if wd := r.Withdrawal; wd != nil {
		field("note", Escape(wd.Statement()))
	}
	b.WriteString("\n}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// name is a creator as BibTeX reads names: "Family, Given", or the name
// braced whole.
func name(c metadata.Creator) string {
	if !c.Personal() {
		return "{" + Escape(c.Name) + "}"
	}
	return part(c.Family) + ", " + part(c.Given)
}

// part is a part of a personal name, braced when it holds " and ", which
// would split it.
func part(s string) string {
	s = Escape(s)
	if strings.Contains(strings.ToLower(s), " and ") {
		return "{" + s + "}"
	}
	return s
}

// texSpecials are TeX's special characters with what stands for each in
// text, braces as \{ and \}.
var texSpecials = strings.NewReplacer(
	`\`, `$\backslash$`, `&`, `\&`, `%`, `\%`, `$`, `\$`, `#`, `\#`, `_`, `\_`, `{`, `\{`, `}`, `\}`,
	`~`, `\textasciitilde{}`, `^`, `\textasciicircum{}`)

// texSpecialsUnbalanced are texSpecials with braces as \textbraceleft{}
// and \textbraceright{}: BibTeX counts the braces of \{ and \} too, so a
// value whose braces do not balance must not hold them.
var texSpecialsUnbalanced = strings.NewReplacer(
	`\`, `$\backslash$`, `&`, `\&`, `%`, `\%`, `$`, `\$`, `#`, `\#`, `_`, `\_`, `{`, `\textbraceleft{}`, `}`, `\textbraceright{}`,
	`~`, `\textasciitilde{}`, `^`, `\textasciicircum{}`)

// Escape is s as the text of a BibTeX field: TeX specials escaped, line
// breaks of any kind (metadata.OneLine) made spaces, everything else
// kept.
func Escape(s string) string {
	s = metadata.OneLine(s)
	if balanced(s) {
		return texSpecials.Replace(s)
	}
	return texSpecialsUnbalanced.Replace(s)
}

// balanced reports whether every "}" of s closes a "{" before it and every
// "{" is closed.
func balanced(s string) bool {
	depth := 0
	for _, c := range s {
		switch c {
		case '{':
			depth++
		case '}':
			if depth--; depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

// Key is a BibTeX key for an identifier: characters that may not stand in
// a key (space, quote, comma, braces, parentheses, "#", "%", "~", "\",
// "=") are replaced by "-".
func Key(id string) string {
	return strings.Map(func(c rune) rune {
		if c <= ' ' || strings.ContainsRune(`",{}()#%~\=`, c) {
			return '-'
		}
		return c
	}, id)
}
