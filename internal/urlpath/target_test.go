package urlpath

import "testing"

// A target with a scheme and host but no path gets "/" after the host,
// before any query or fragment; every other target is left as it is.
func TestWithRootPath(t *testing.T) {
	for target, want := range map[string]string{
		"https://repo.example.org":         "https://repo.example.org/",
		"https://repo.example.org?a=1":     "https://repo.example.org/?a=1",
		"https://repo.example.org#top":     "https://repo.example.org/#top",
		"https://repo.example.org/":        "https://repo.example.org/",
		"https://repo.example.org/x5?a=/b": "https://repo.example.org/x5?a=/b",
		"http://h:8080?next=https://a/b":   "http://h:8080/?next=https://a/b",
		"/objects/o1.html":                 "/objects/o1.html",
		"mailto:archive@example.org":       "mailto:archive@example.org",
		"":                                 "",
	} {
		if got := WithRootPath(target); got != want {
			t.Errorf("WithRootPath(%q) = %q, want %q", target, got, want)
		}
	}
}
