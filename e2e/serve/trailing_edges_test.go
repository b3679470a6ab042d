package serve

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// The repaired trailing "/" (issue 9, item 12) also when the path holds
// non-ASCII bytes or another repair (a doubled "/"): file_server's redirect
// spells the path differently from the request (escaped, cleaned), and it
// must still be recognized and replaced by the file.
func TestTrailingSlashOnFileTargetEdges(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"x5\u0431", "x5noext"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte("file "+name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := caddytest.StartSite(t, `
	root * `+root+`
	ark {
		naan 12345
		map ark:12345/x5%D0%B1 /x5%D0%B1
		map ark:12345/x5noext /x5noext
	}
	file_server`)
	for p, body := range map[string]string{
		"/ark:12345/x5%D0%B1/":   "file x5\u0431",
		"/ark:12345/x5\xd0\xb1/": "file x5\u0431",
		"/ark:12345//x5noext/":   "file x5noext",
		"/ark:12345/x5noext/?a":  "file x5noext",
	} {
		if got := s.Get(p); got.Status != http.StatusOK || got.Location != "" || got.Body != body {
			t.Errorf("%s: got %d Location %q %q, want 200 %q", p, got.Status, got.Location, got.Body, body)
		}
	}
}
