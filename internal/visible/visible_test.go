package visible

import (
	htmltemplate "html/template"
	"testing"
)

func TestRule(t *testing.T) {
	for c, want := range map[rune]bool{
		'a': false, ' ': false, '\t': false, '\n': false, '\r': false, 'é': false, '\u00A0': false,
		0: true, 0x7f: true, 0x85: true, '\u200B': true, '\u202E': true, '\u2066': true, '\uFEFF': true,
		'\u2028': true, '\u2029': true, '\U000E0001': true,
	} {
		if Invisible(c) != want {
			t.Errorf("Invisible(U+%04X) = %t", c, !want)
		}
	}
}

func TestShowings(t *testing.T) {
	s := "Invoice\u202Efdp.exe <b>"
	if got := HTML(s); got != htmltemplate.HTML(`<bdi>Invoice<span class="ctl">U+202E</span>fdp.exe &lt;b&gt;</bdi>`) {
		t.Errorf("HTML: %q", got)
	}
	if got := HTML("plain <b>"); got != "plain <b>" {
		t.Errorf("HTML of plain ASCII, left to the template to escape: %q", got)
	}
	if got := ASCIIHTML("x5еd<"); got != htmltemplate.HTML(`<bdi>x5<span class="ctl">U+0435</span>d&lt;</bdi>`) {
		t.Errorf("ASCIIHTML of a name with a Cyrillic e: %q", got)
	}
	if got := ASCIIHTML("x5ed"); got != "x5ed" {
		t.Errorf("ASCIIHTML of an ASCII name: %q", got)
	}
	if got := Text(s); got != "Invoice[U+202E]fdp.exe <b>" {
		t.Errorf("Text: %q", got)
	}
	if got := PercentEncode("https://a.example/\u202Egpj.exe?é"); got != "https://a.example/%E2%80%AEgpj.exe?é" {
		t.Errorf("PercentEncode: %q", got)
	}
	if got := string(EscapeJSON([]byte("\"a\u202Eb\U000E0001\""))); got != `"a\u202Eb\uDB40\uDC01"` {
		t.Errorf("EscapeJSON: %s", got)
	}
}
