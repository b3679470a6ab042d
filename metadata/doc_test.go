package metadata_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/metadata/bibtex"
	"github.com/caddy-ark/caddy-ark/metadata/citation"
	"github.com/caddy-ark/caddy-ark/metadata/csl"
	"github.com/caddy-ark/caddy-ark/metadata/datacite"
	"github.com/caddy-ark/caddy-ark/metadata/erc"
	"github.com/caddy-ark/caddy-ark/metadata/ris"
	"github.com/caddy-ark/caddy-ark/metadata/schemaorg"
	"github.com/caddy-ark/caddy-ark/metadata/turtle"
)

// docPage is the page whose samples are checked.
const docPage = "../docs/metadata-model.md"

// writers are the formats a sample may name.
var writers = map[string]func(io.Writer, *metadata.Record) error{
	"erc": erc.Write, "datacite": datacite.Write, "schemaorg": schemaorg.Write, "turtle": turtle.Write,
	"csl": csl.Write, "bibtex": bibtex.Write, "ris": ris.Write,
	"citation":      func(w io.Writer, r *metadata.Record) error { return citation.Write(w, r, "apa") },
	"citation-html": func(w io.Writer, r *metadata.Record) error { return citation.WriteHTML(w, r, "apa") },
}

// sampleMark is the comment above a fenced block of the page: a record
// ("record: live") or what a format writes for one ("live datacite").
var sampleMark = regexp.MustCompile(`^<!-- metadata sample(?: record: (\S+)|: (\S+) (\S+)) -->$`)

// docRecord is a sample record as the page gives it.
type docRecord struct {
	ID           string            `json:"id"`
	URL          string            `json:"url"`
	Target       string            `json:"target"`
	Status       int               `json:"status"`
	Meta         map[string]string `json:"meta"`
	Defaults     metadata.Defaults `json:"defaults"`
	Organization string            `json:"organization"`
}

// TestDocSamplesAreRealOutputs writes each record of the page in each
// format its samples show and compares with them.
func TestDocSamplesAreRealOutputs(t *testing.T) {
	f, err := os.Open(docPage)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records := map[string]*metadata.Record{}
	samples := 0
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		m := sampleMark.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		block, n := fence(t, sc, line)
		switch {
		case m[1] != "":
			var d docRecord
			if err := json.Unmarshal([]byte(block), &d); err != nil {
				t.Fatalf("%s:%d: record %s: %v", docPage, line, m[1], err)
			}
			resolver := d.URL[:strings.Index(d.URL, d.ID)]
			records[m[1]] = metadata.New(metadata.Identifier{ID: d.ID, URL: d.URL, Resolver: resolver, Target: d.Target, Status: d.Status},
				d.Meta, d.Defaults, d.Organization)
		default:
			r, write := records[m[2]], writers[m[3]]
			if r == nil || write == nil {
				t.Fatalf("%s:%d: no record %q or format %q", docPage, line, m[2], m[3])
			}
			var buf bytes.Buffer
			if err := write(&buf, r); err != nil {
				t.Fatal(err)
			}
			if got := strings.ReplaceAll(buf.String(), "\r\n", "\n"); got != block {
				t.Errorf("%s:%d: %s %s is\n%s\nthe page says\n%s", docPage, line, m[2], m[3], got, block)
			}
			samples++
		}
		line += n
	}
	if samples == 0 {
		t.Fatalf("%s has no samples", docPage)
	}
}

// fence reads the fenced block that follows a mark: its content, with a
// final newline, and how many lines it took.
func fence(t *testing.T, sc *bufio.Scanner, line int) (string, int) {
	t.Helper()
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "```") {
		t.Fatalf("%s:%d: no fenced block after the mark", docPage, line)
	}
	var b strings.Builder
	for n := 2; sc.Scan(); n++ {
		if sc.Text() == "```" {
			return b.String(), n
		}
		b.WriteString(sc.Text() + "\n")
	}
	t.Fatalf("%s:%d: unterminated block", docPage, line)
	return "", 0
}
