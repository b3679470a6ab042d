package cli

import (
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

func TestArkCommandResolve(t *testing.T) {
	srv := testkit.ChainServer(t, map[string]testkit.Reply{
		"/ark:12345/x5": {Status: http.StatusSeeOther, Location: "/about"},
		"/about":        {Status: http.StatusOK, Location: ""},
	})
	out, _, err := caddytest.RunArkCommand(t, "", "resolve", "--resolver", srv.URL, "--method", "get", "ark:/12345/x5")
	if err != nil || !strings.HasSuffix(out, "related: "+srv.URL+"/about\n") {
		t.Errorf("resolve: out %q, err %v", out, err)
	}
	for _, args := range [][]string{
		{"resolve", "--resolver", srv.URL, "ark:12345/nothing"},
		{"resolve", "--resolver", srv.URL, "--max-redirects", "0", "ark:12345/x5"},
		{"resolve", "--method", "PUT", "ark:12345/x5"},
		{"resolve", "--max-redirects", "-1", "ark:12345/x5"},
		{"resolve"},
		{"resolve", "ark:12345/a", "ark:12345/b"},
	} {
		if _, _, err := caddytest.RunArkCommand(t, "", args...); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

func TestBinaryResolve(t *testing.T) {
	srv := testkit.ChainServer(t, map[string]testkit.Reply{
		"/ark:12345/x5":   {Status: http.StatusFound, Location: "/content"},
		"/content":        {Status: http.StatusOK, Location: ""},
		"/ark:12345/loop": {Status: http.StatusFound, Location: "/ark:12345/loop"},
	})
	out, errOut, status := caddytest.RunCaddy(t, "", "ark", "resolve", "--resolver", srv.URL, "--timeout", "10s", "ark:/12-345/x5")
	want := "302 " + srv.URL + "/ark:12345/x5 -> " + srv.URL + "/content\n" +
		"200 " + srv.URL + "/content\n" +
		"direct: " + srv.URL + "/content\n"
	if out != want || status != 0 {
		t.Errorf("resolve: status %d, stdout:\n%s\nwant:\n%s\nstderr: %s", status, out, want, errOut)
	}
	_, errOut, status = caddytest.RunCaddy(t, "", "ark", "resolve", "--resolver", srv.URL, "ark:12345/loop")
	if status != 1 || !strings.Contains(errOut, "redirect loop") {
		t.Errorf("resolve a loop: status %d, stderr %q", status, errOut)
	}
}

// The client follows the project's own handler, in process: a redirect to
// the referent, an answer in place, and a 303 to a related resource.
func TestResolveARKAgainstTheHandler(t *testing.T) {
	s := caddytest.StartSite(t, `
	root * `+caddytest.SiteRoot(t)+`
	ark {
		naan 12345
		map ark:12345/x5wf6789 /objects/x5wf6789.html
		map ark:12345/x5abcd /objects/x5wf6789.html 302
		map ark:12345/x5efgh /objects/thesis.html 303
		foreign 404
	}
	file_server`)
	for id, want := range map[string]string{
		"ark:/12345/x5-wf6789": "direct: " + s.Base + "/ark:12345/x5wf6789\n",
		"ark:12345/x5abcd":     "direct: " + s.Base + "/objects/x5wf6789.html\n",
		"ARK:/12345/x5efgh":    "related: " + s.Base + "/objects/thesis.html\n",
	} {
		out, _, err := caddytest.RunArkCommand(t, "", "resolve", "--resolver", s.Base, "--max-redirects", "5", "--method", "GET", id)
		if err != nil {
			t.Errorf("%s: %v\n%s", id, err, out)
			continue
		}
		if !strings.HasSuffix(out, want) {
			t.Errorf("%s: got\n%swant the last line %q", id, out, want)
		}
	}
	if _, _, err := caddytest.RunArkCommand(t, "", "resolve", "--resolver", s.Base, "--max-redirects", "5", "ark:12345/unknown"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("unknown ARK: err %v", err)
	}
}
