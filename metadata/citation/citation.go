// Package citation writes a metadata.Record as a formatted citation, as
// DOI content negotiation answers text/x-bibliography: plain text, or an
// HTML fragment with the title in italics and the URL linked.
//
// The one style is "apa" (APA 7th edition, as the CSL project's apa.csl
// renders a record's CSL-JSON): authors, (year), title [type], publisher,
// the canonical URL. A record without creators is cited by its title; one
// without a date has "(n.d.)", or "(withdrawn)" when withdrawn, as apa.csl
// writes it. A withdrawn record's citation ends with the withdrawal
// statement.
package citation

import (
	"errors"
	"html"
	"io"
	"strings"
	"unicode"

	"github.com/caddy-ark/caddy-ark/metadata"
)

// MediaType is the media type of a formatted citation.
const MediaType = "text/x-bibliography"

// DefaultStyle is the style used when none is asked for.
const DefaultStyle = "apa"

// Styles are the styles this package formats.
var Styles = []string{"apa"}

// ErrUnknownStyle is returned for a style not in Styles.
var ErrUnknownStyle = errors.New("citation: unknown style")

// part is a span of a citation: text, in italics or not, or a link.
type part struct {
	text   string
	italic bool
	link   bool
}

// Write writes r's citation in style as plain text, ending in a newline.
func Write(w io.Writer, r *metadata.Record, style string) error {
	parts, err := format(r, style)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.text)
	}
	b.WriteString("\n")
	_, err = io.WriteString(w, b.String())
	return err
}

// WriteHTML writes r's citation in style as an HTML fragment: a
// <div class="csl-entry">, as citeproc writes one, with the title in <i>
// and the URL in <a>.
func WriteHTML(w io.Writer, r *metadata.Record, style string) error {
	parts, err := format(r, style)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString(`<div class="csl-entry">`)
	for _, p := range parts {
		t := html.EscapeString(p.text)
		switch {
		case p.italic:
			t = "<i>" + t + "</i>"
		case p.link:
			t = `<a href="` + t + `">` + t + "</a>"
		}
		b.WriteString(t)
	}
	b.WriteString("</div>\n")
	_, err = io.WriteString(w, b.String())
	return err
}

// format is r's citation in style, in parts, each one line: a citation
// is one line of text, whatever line breaks its values hold.
func format(r *metadata.Record, style string) ([]part, error) {
	if style == "" {
		style = DefaultStyle
	}
	if style != "apa" {
		return nil, ErrUnknownStyle
	}
	parts := apa(r)
	for i := range parts {
		parts[i].text = metadata.OneLine(parts[i].text)
	}
	return parts, nil
}

// apa is r's citation in APA style.
func apa(r *metadata.Record) []part {
	var parts []part
	add := func(p part) { parts = append(parts, p) }
	sentence := func(s string) string {
		if strings.HasSuffix(s, ".") {
			return s + " "
		}
		return s + ". "
	}
	title := []part{}
	if r.Title != "" {
		title = append(title, part{text: r.Title, italic: true})
	}
	if bracket := bracket(r); bracket != "" {
		title = append(title, part{text: " [" + bracket + "]"})
	}
	authors := apaAuthors(r.Creators)
	if authors != "" {
		add(part{text: sentence(authors)})
	} else if len(title) > 0 {
		parts = append(parts, title...)
		add(part{text: ". "})
		title = nil
	}
	date := r.Date.YearString()
	switch {
	case date != "":
	case r.Withdrawn():
		date = "withdrawn"
	default:
		date = "n.d."
	}
	add(part{text: "(" + date + "). "})
	if len(title) > 0 {
		parts = append(parts, title...)
		add(part{text: ". "})
	}
	if r.Publisher != "" {
		add(part{text: sentence(r.Publisher)})
	}
	add(part{text: r.URL, link: true})
	if wd := r.Withdrawal; wd != nil {
		add(part{text: " " + wd.Statement()})
	}
	return parts
}

// bracket is the description APA puts in brackets after the title: the
// record's specific type, else "Data set" for a dataset.
func bracket(r *metadata.Record) string {
	if r.Type.Specific != "" {
		return r.Type.Specific
	}
	if r.Type.General == "Dataset" {
		return "Data set"
	}
	return ""
}

// apaAuthors lists the creators as APA does: "Family, I. I." or a name,
// separated by commas, "&" before the last; of more than 20, the first 19,
// an ellipsis and the last.
func apaAuthors(creators []metadata.Creator) string {
	names := make([]string, len(creators))
	for i, c := range creators {
		names[i] = c.Name
		if c.Personal() {
			names[i] = c.Family + ", " + initials(c.Given)
		}
	}
	switch n := len(names); {
	case n == 0:
		return ""
	case n == 1:
		return names[0]
	case n > 20:
		return strings.Join(names[:19], ", ") + ", … " + names[n-1]
	default:
		return strings.Join(names[:n-1], ", ") + ", & " + names[n-1]
	}
}

// initials are a given name's initials: "Jean-Paul Marie" is "J.-P. M.";
// a word starting in lowercase (a particle such as "von") is kept whole.
func initials(given string) string {
	var words []string
	for word := range strings.FieldsSeq(given) {
		first := []rune(word)[0]
		if unicode.IsLower(first) {
			words = append(words, word)
			continue
		}
		var parts []string
		for piece := range strings.SplitSeq(word, "-") {
			if piece != "" {
				parts = append(parts, string([]rune(piece)[0])+".")
			}
		}
		words = append(words, strings.Join(parts, "-"))
	}
	return strings.Join(words, " ")
}
