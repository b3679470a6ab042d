package serve

import (
	"net/http"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// /.well-known/ark says where the resolver service is (draft-kunze-ark).
func TestWellKnownARKNamesTheServicePath(t *testing.T) {
	s := infoSite(t)
	got := s.Get("/.well-known/ark")
	if got.Status != 200 || got.Body != "/" || got.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("got %d %q %q", got.Status, got.Body, got.Header.Get("Content-Type"))
	}
	if got := s.Do(http.MethodPost, "/.well-known/ark", nil); got.Status != 405 || got.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: got %d %q", got.Status, got.Header.Get("Allow"))
	}

	prefixed := caddytest.StartSite(t, `handle_path /resolver/* {
		ark {
			map ark:12345/x5 https://e.org/x
		}
	}`)
	if got := prefixed.Get("/resolver/.well-known/ark"); got.Body != "/resolver/" {
		t.Errorf("under handle_path: got %d %q", got.Status, got.Body)
	}
	l := caddytest.Links(prefixed.Get("/resolver/ark:12345/x-5"))
	if len(l["describedby"]) == 0 || l["describedby"][0] != prefixed.Base+"/resolver/ark:12345/x5?info" {
		t.Errorf("under handle_path: Link %v", l)
	}

	none := caddytest.StartSite(t, `respond "no resolver here"`)
	if got := none.Get("/.well-known/ark"); got.Body != "no resolver here" {
		t.Errorf("a site without ark answered %q", got.Body)
	}
}
