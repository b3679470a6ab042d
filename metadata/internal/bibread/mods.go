// Package bibread reads the bibliographic formats back for the format
// tests, with readers made for them: bibutils (Debian's bibutils: bib2xml
// for BibTeX, ris2xml for RIS), read through the MODS XML it makes;
// btparse (Debian's libtext-bibtex-perl), BibTeX's own parser library, for
// the raw fields of a BibTeX entry; and pylatexenc (Debian's
// python3-pylatexenc) for what those fields say as LaTeX text. Only tests
// import it.
package bibread

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// Record is what the tests read of one MODS record.
type Record struct {
	// Key is the record's ID: the BibTeX key, or RIS's ID tag.
	Key string `xml:"ID,attr"`
	// Title is titleInfo/title.
	Title string `xml:"titleInfo>title"`
	// Names are the names, creators first.
	Names []Name `xml:"name"`
	// Issued is originInfo/dateIssued: "1903", "1903-05" or "1903-05-17".
	Issued string `xml:"originInfo>dateIssued"`
	// Publisher is originInfo/publisher.
	Publisher string `xml:"originInfo>publisher"`
	// Genres are the genres bibutils gives.
	Genres []string `xml:"genre"`
	// Language is language/languageTerm.
	Language string `xml:"language>languageTerm"`
	// Abstract is the abstract.
	Abstract string `xml:"abstract"`
	// Topics are the subjects (keywords).
	Topics []string `xml:"subject>topic"`
	// Notes are the notes.
	Notes []string `xml:"note"`
	// URLs are location/url.
	URLs []string `xml:"location>url"`
}

// Name is a MODS name.
type Name struct {
	// Type is "personal" for a person's name.
	Type string `xml:"type,attr"`
	// Parts are the name's parts, each with its type.
	Parts []struct {
		Type  string `xml:"type,attr"`
		Value string `xml:",chardata"`
	} `xml:"namePart"`
}

// Part is the name's parts of a type ("given", "family", "" for a name
// that is not a person's), joined by spaces.
func (n Name) Part(typ string) string {
	var parts []string
	for _, p := range n.Parts {
		if p.Type == typ {
			parts = append(parts, p.Value)
		}
	}
	return strings.Join(parts, " ")
}

// Read runs tool (bib2xml or ris2xml) on doc and returns the records it
// read. The test fails when the tool is missing under CI, and is skipped
// when it is missing elsewhere.
func Read(t *testing.T, tool string, doc []byte) []Record {
	t.Helper()
	path := testkit.NeedTool(t, tool, "bibutils")
	// -i utf8: the input is UTF-8; -un: Unicode out, without a byte order
	// mark; -nt: titles are not split at a colon into title and subtitle.
	cmd := exec.Command(path, "-i", "utf8", "-un", "-nt")
	cmd.Stdin = bytes.NewReader(doc)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", tool, err, stderr.String())
	}
	var collection struct {
		Records []Record `xml:"mods"`
	}
	if err := xml.Unmarshal(out, &collection); err != nil {
		t.Fatalf("%s wrote no MODS: %v\n%s", tool, err, out)
	}
	return collection.Records
}

// TeXTypography undoes what the readers do as TeX would typeset: a
// straight quote read as a curly one (TeX's ligatures for ' and "), and
// the circumflex of \textasciicircum read as U+2303 (bibutils' table) or
// U+02C6 (pylatexenc's), so that a value read back compares with the text
// written.
func TeXTypography(s string) string {
	return strings.NewReplacer("’", "'", "”", `"`, "⌃", "^", "ˆ", "^").Replace(s)
}

// Must fails the test when records holds other than one record.
func Must(t *testing.T, records []Record) Record {
	t.Helper()
	if len(records) != 1 {
		t.Fatalf("read %d records, want 1: %s", len(records), fmt.Sprint(records))
	}
	return records[0]
}

// debianPython is Debian's python3, where Debian's python3-pylatexenc
// installs.
const debianPython = "/usr/bin/python3"

// latexToText reads each JSON string of stdin as LaTeX text with
// pylatexenc and writes the text it stands for. pylatexenc's table lacks
// LaTeX 2e's \textbraceleft and \textbraceright; they are added.
const latexToText = `import json, sys
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db
db = get_default_latex_context_db()
db.add_context_category("latex2e-braces", prepend=True, macros=[MacroTextSpec("textbraceleft", "{"), MacroTextSpec("textbraceright", "}")])
c = LatexNodes2Text(latex_context=db, strict_latex_spaces=True)
json.dump([c.latex_to_text(s) for s in json.load(sys.stdin)], sys.stdout)`

// LaTeXToText reads each value as LaTeX text with pylatexenc (Debian's
// python3-pylatexenc), a LaTeX reader: an unescaped "%" starts a comment
// there, an unescaped "&" is an alignment tab, "$" opens math, braces
// group, so that a value reads back as written only when its specials are
// escaped. The test fails when pylatexenc is missing under CI, and is
// skipped when it is missing elsewhere.
func LaTeXToText(t *testing.T, values []string) []string {
	t.Helper()
	if err := exec.Command(debianPython, "-c", "import pylatexenc").Run(); err != nil {
		testkit.Missing(t, "pylatexenc", "python3-pylatexenc")
	}
	in, _ := json.Marshal(values)
	cmd := exec.Command(debianPython, "-c", latexToText)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pylatexenc: %v\n%s", err, stderr.String())
	}
	var text []string
	if err := json.Unmarshal(out, &text); err != nil {
		t.Fatalf("pylatexenc: %v\n%s", err, out)
	}
	return text
}
