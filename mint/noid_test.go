package mint

import (
	"strings"
	"testing"
)

func TestNCDA(t *testing.T) {
	// The Noid documentation's example.
	if c := NCDA("13030/xf93gt2"); c != 'q' {
		t.Errorf("ncda(13030/xf93gt2) = %q, want q", c)
	}
	if !CheckMatches("13030/xf93gt2q") {
		t.Error("13030/xf93gt2q: the right check character is refused")
	}
	// One character changed, and two neighbours swapped: both caught.
	for _, wrong := range []string{"13030/xf93gt3q", "13030/xf39gt2q", "13030/xf93gt2r", "q"} {
		if CheckMatches(wrong) {
			t.Errorf("%s: a wrong check character is accepted", wrong)
		}
	}
}

func TestNoidTemplate(t *testing.T) {
	tm, err := parseNoidTemplate(".reeddeedk")
	if err != nil {
		t.Fatal(err)
	}
	// The figure: 29^4 * 10^3 names of seven characters.
	if tm.size != 707_281_000 || !tm.check || tm.order != 'r' {
		t.Errorf(".reeddeedk: size %d, check %v, order %c", tm.size, tm.check, tm.order)
	}
	seq, _ := parseNoidTemplate("sdd")
	for n, want := range map[uint64]string{0: "00", 7: "07", 42: "42", 99: "99"} {
		if got := seq.name(n); got != want {
			t.Errorf("sdd name %d = %q, want %q", n, got, want)
		}
	}
	mixed, _ := parseNoidTemplate(".sed")
	if got := mixed.name(10*28 + 9); got != "z9" {
		t.Errorf(".sed last name = %q, want z9", got)
	}
	grow, _ := parseNoidTemplate(".zd")
	for n, want := range map[uint64]string{0: "0", 9: "9", 10: "10", 123: "123"} {
		if got := grow.name(n); got != want {
			t.Errorf(".zd name %d = %q, want %q", n, got, want)
		}
	}
	for _, bad := range []string{"", ".", ".q", ".rk", ".rdx", ".rkd", "x5.rd", "." + "r" + strings.Repeat("e", 20)} {
		if _, err := parseNoidTemplate(bad); err == nil {
			t.Errorf("template %q accepted", bad)
		}
	}
}
