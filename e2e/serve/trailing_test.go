package serve

import (
	"net/http"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// A trailing "/" is a lenient repair: the repaired spelling of an ARK whose
// target is a file answers as its normal form does, even when the file's
// name is the ARK's own (where file_server would redirect to drop the
// slash) (issue 9, item 12).
func TestTrailingSlashOnFileTargetAnswersAsNormalForm(t *testing.T) {
	s := caddytest.StartSite(t, `
	root * `+caddytest.SiteRoot(t)+`
	ark {
		naan 12345
		map ark:12345/x5noext /objects/x5noext
		map ark:12345/thesis.html /objects/thesis.html
		shoulder ark:12345/x5 /objects/{http.ark.name}
	}
	file_server`)
	for _, p := range []string{"/ark:12345/x5noext", "/ark:12345/x5noext/", "/ark:/12345/x5noext//", "/ark:12345/thesis.html/", "/ark:12345/x5wf6789.html/"} {
		got := s.Get(p)
		if got.Status != http.StatusOK || got.Location != "" || got.Body == "" {
			t.Errorf("%s: got %d %q %q, want the file", p, got.Status, got.Location, got.Body)
		}
	}
}
