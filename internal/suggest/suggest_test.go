package suggest

import "testing"

func TestClosest(t *testing.T) {
	options := []string{"naan", "table", "map", "shoulder", "info_template", "targets_check", "cache_size", "store", "stats"}
	for word, want := range map[string]string{
		"tabel":         "table", // two letters swapped
		"tables":        "table", // one too many
		"naans":         "naan",  //
		"targets-check": "targets_check",
		"target_check":  "targets_check",
		"infotemplate":  "info_template",
		"cache-size":    "cache_size",
		"stat":          "stats", // nearer stats than store
		"shouldr":       "shoulder",
		"frobnicate":    "", // nothing near
		"api":           "", // map is two edits from a three-letter word
		"template":      "", // too far from info_template
	} {
		got, ok := Closest(word, options)
		if got != want || ok != (want != "") {
			t.Errorf("Closest(%q) = %q, %v; want %q", word, got, ok, want)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	if got := DidYouMean("tabel", []string{"table"}); got != ` (did you mean "table"?)` {
		t.Errorf("DidYouMean: %q", got)
	}
	if got := DidYouMean("frobnicate", []string{"table"}); got != "" {
		t.Errorf("DidYouMean with nothing near: %q", got)
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"table", "table", 0},
		{"tabel", "table", 1}, {"kitten", "sitting", 3}, {"ca", "abc", 3}, {"é", "e", 1},
	} {
		if got := distance(c.a, c.b); got != c.want {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := distance(c.b, c.a); got != c.want {
			t.Errorf("distance(%q, %q) = %d, want %d", c.b, c.a, got, c.want)
		}
	}
}

func TestList(t *testing.T) {
	for _, c := range []struct {
		words []string
		want  string
	}{
		{nil, ""},
		{[]string{"skip_check"}, "skip_check"},
		{[]string{"a", "b"}, "a and b"},
		{[]string{"dsn", "schema", "max_conns", "timeout"}, "dsn, schema, max_conns and timeout"},
	} {
		if got := List(c.words); got != c.want {
			t.Errorf("List(%q) = %q, want %q", c.words, got, c.want)
		}
	}
}
