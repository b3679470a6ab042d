package erc_test

import (
	"bufio"
	"bytes"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/metadata/erc"
	"github.com/caddy-ark/caddy-ark/metadata/internal/fixture"
)

// readANVL is a strict ANVL reader (draft-kunze-anvl: "name: value"
// elements, continuation lines starting with whitespace, a blank line
// ending the record, "%" encoding) written for this test: no ANVL reader
// made by others is packaged for Go, Debian or npm. It returns the
// elements in order, values unfolded (continuation lines joined with
// "\n") and %-decoded, and fails on any line that is not an element or a
// continuation. Names are %-decoded whole; in values, only what the writer
// encodes there is decoded (control and format characters): it leaves a
// literal "%" as it is, so that URLs keep their own %-encoding.
func readANVL(t *testing.T, doc string) []erc.Element {
	t.Helper()
	var out []erc.Element
	sc := bufio.NewScanner(strings.NewReader(doc))
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		switch {
		case text == "":
			t.Fatalf("line %d: a blank line ends the record early", line)
		case text[0] == ' ' || text[0] == '\t':
			if len(out) == 0 {
				t.Fatalf("line %d: continuation without an element", line)
			}
			out[len(out)-1].Value += "\n" + strings.TrimLeft(text, " \t")
		default:
			name, value, ok := strings.Cut(text, ":")
			if !ok || name == "" || strings.ContainsAny(name, " \t") {
				t.Fatalf("line %d: not an element: %q", line, text)
			}
			out = append(out, erc.Element{Name: name, Value: strings.TrimLeft(value, " ")})
		}
	}
	for i, e := range out {
		name, err := url.PathUnescape(e.Name)
		if err != nil {
			t.Fatalf("element %d: bad %%-encoding: %q", i, e)
		}
		out[i] = erc.Element{Name: name, Value: encodedControls.ReplaceAllStringFunc(e.Value, decodeControl)}
	}
	return out
}

// encodedControls are runs of %-encoded octets.
var encodedControls = regexp.MustCompile(`(%[0-9A-F]{2})+`)

// decodeControl decodes a run of %-encoded octets when it spells control
// or format characters only, and keeps it as it is otherwise.
func decodeControl(run string) string {
	decoded, err := url.PathUnescape(run)
	if err != nil || !utf8.ValidString(decoded) {
		return run
	}
	for _, c := range decoded {
		if !unicode.Is(unicode.Cc, c) && !unicode.Is(unicode.Cf, c) && c != '\u2028' && c != '\u2029' {
			return run
		}
	}
	return decoded
}

// TestWriteReadsBack reads every fixture's ERC back and compares it with
// the record.
func TestWriteReadsBack(t *testing.T) {
	odd := metadata.New(metadata.Identifier{ID: "ark:12345/x5odd", URL: "https://ark.example.org/ark:12345/x5odd", Status: 302},
		map[string]string{"what": "Invoice\u202Eexe.pdf\nsecond line\r\n\nthird: line 100%", "who": "Ab\u200Bc"}, nil, "")
	for _, tc := range append(fixture.Cases(), fixture.Case{Name: "controls and folded lines", Record: odd}) {
		t.Run(tc.Name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := erc.Write(&buf, tc.Record); err != nil {
				t.Fatal(err)
			}
			got := readANVL(t, buf.String())
			r := tc.Record
			var names []string
			for _, c := range r.Creators {
				names = append(names, c.Name)
			}
			where := r.Where
			if where == "" {
				where = r.URL
			}
			want := []erc.Element{{Name: "erc"}, {Name: "who", Value: strings.Join(names, "; ")}, {Name: "what", Value: r.Title},
				{Name: "when", Value: r.Date.Raw}, {Name: "where", Value: where}}
			for i := range want {
				if want[i].Name != "erc" && want[i].Value == "" {
					want[i].Value = metadata.Unavailable
				}
				want[i].Value = lines(want[i].Value)
			}
			if wd := r.Withdrawal; wd != nil {
				if d := wd.Date.ISO(); d != "" {
					want = append(want, erc.Element{Name: "withdrawn", Value: d})
				}
				if wd.Reason != "" {
					want = append(want, erc.Element{Name: "reason", Value: wd.Reason})
				}
				if wd.Successor != nil {
					want = append(want, erc.Element{Name: "successor", Value: wd.Successor.URL})
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("read\n%q\nwant\n%q\nfrom\n%s", got, want, buf.String())
			}
		})
	}
}

// lines is v as an ANVL value reads back: its lines (CR LF, LF or CR
// ending them), each trimmed, without the empty ones, joined by LF.
func lines(v string) string {
	var out []string
	for l := range strings.SplitSeq(strings.ReplaceAll(strings.ReplaceAll(v, "\r\n", "\n"), "\r", "\n"), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
