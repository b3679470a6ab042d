package negotiate

import "testing"

var offers = []string{"text/plain", "application/json", "text/html", "application/x-bibtex", "text/x-bibliography"}

func TestChoose(t *testing.T) {
	for accept, want := range map[string]int{
		"":                                  0,
		" ":                                 0,
		"*/*":                               0,
		"text/*":                            0,
		"application/*":                     1,
		"TEXT/HTML; charset=utf-8":          2,
		"text/plain;q=0.5, text/html":       2,
		"application/json;q=0.9, */*;q=0.1": 1,
		"text/html;q=0, */*":                0,
		"*/*;q=0.5, text/plain;q=0":         1, // the explicit q=0 wins over the wildcard for text/plain
		"image/png":                         -1,
		"text/plain;q=0":                    -1,
		"text/plain;q=2":                    -1, // not a qvalue: refused, not guessed
		"text/plain;q=0.0001":               -1, // four decimals are not a qvalue
		"application/x-bibtex;q=1.000":      3,
		"text/x-bibliography; style=apa; q=0.9, text/html; q=0.8":   4,
		"text/html;q=0.8, application/json;q=0.8, text/plain;q=0.7": 1,
		`text/x-bibliography; style="a,b"`:                          4,
	} {
		if got := Choose(header(accept), offers); got != want {
			t.Errorf("Choose(%q) = %d, want %d", accept, got, want)
		}
	}
}

func TestNamed(t *testing.T) {
	meta := []string{"application/x-bibtex", "application/vnd.citationstyles.csl+json"}
	for accept, want := range map[string]int{
		"":    -1,
		"*/*": -1,
		"text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8": -1,
		"application/json":                                                          -1,
		"application/x-bibtex":                                                      0,
		"APPLICATION/X-BIBTEX":                                                      0,
		"application/x-bibtex, */*":                                                 0,  // explicit beats a wildcard of the same q
		"application/x-bibtex;q=0.5, */*":                                           -1, // the wildcard is preferred
		"application/x-bibtex;q=0.5, */*;q=0.1":                                     0,  // doi.org's common form
		"application/x-bibtex, text/html":                                           -1, // a tie with another explicit type: the resource
		"application/x-bibtex;q=0":                                                  -1,
		"application/vnd.citationstyles.csl+json, application/x-bibtex":             0,
		"application/x-bibtex;q=0.8, application/vnd.citationstyles.csl+json":       1,
		"application/vnd.citationstyles.csl+json;q=0.5, application/x-bibtex;q=0.5": 0, // tie: the earlier offer
		"application/*":                                                             -1,
	} {
		if got := Named(header(accept), meta); got != want {
			t.Errorf("Named(%q) = %d, want %d", accept, got, want)
		}
	}
}

func TestParams(t *testing.T) {
	accept := header(`text/*;q=0.1, text/x-bibliography; style="apa"; locale=en-US; q=0.9; ext=1`)
	params := Params(accept, "text/x-bibliography")
	if got := Param(params, "style"); got != "apa" {
		t.Errorf("style = %q from %q", got, params)
	}
	if got := Param(params, "locale"); got != "en-US" {
		t.Errorf("locale = %q from %q", got, params)
	}
	if got := Param(params, "ext"); got != "" {
		t.Errorf("ext, an accept-ext after q, = %q", got)
	}
}

func TestNoAllocations(t *testing.T) {
	accept := header("text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8")
	if n := testing.AllocsPerRun(100, func() { Named(accept, offers) }); n != 0 {
		t.Errorf("Named allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { Choose(accept, offers) }); n != 0 {
		t.Errorf("Choose allocates %v times", n)
	}
}

func header(accept string) []string {
	if accept == "" {
		return nil
	}
	return []string{accept}
}

func BenchmarkNamedBrowser(b *testing.B) {
	accept := header("text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8")
	b.ReportAllocs()
	for b.Loop() {
		Named(accept, offers)
	}
}
