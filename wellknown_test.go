package ark

import (
	"net/http"
	"testing"
)

// /.well-known/ark says where the resolver service is (draft-kunze-ark).
func TestWellKnownARKNamesTheServicePath(t *testing.T) {
	s := infoSite(t)
	got := s.get("/.well-known/ark")
	if got.status != 200 || got.body != "/" || got.header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("got %d %q %q", got.status, got.body, got.header.Get("Content-Type"))
	}
	if got := s.do(http.MethodPost, "/.well-known/ark", nil); got.status != 405 || got.header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: got %d %q", got.status, got.header.Get("Allow"))
	}

	prefixed := startSite(t, `handle_path /resolver/* {
		ark {
			map ark:12345/x5 https://e.org/x
		}
	}`)
	if got := prefixed.get("/resolver/.well-known/ark"); got.body != "/resolver/" {
		t.Errorf("under handle_path: got %d %q", got.status, got.body)
	}
	l := links(prefixed.get("/resolver/ark:12345/x-5"))
	if len(l["describedby"]) == 0 || l["describedby"][0] != prefixed.base+"/resolver/ark:12345/x5?info" {
		t.Errorf("under handle_path: Link %v", l)
	}

	none := startSite(t, `respond "no resolver here"`)
	if got := none.get("/.well-known/ark"); got.body != "no resolver here" {
		t.Errorf("a site without ark answered %q", got.body)
	}
}
