package api

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// startServingAPISite starts an APISite whose in-place targets file_server
// serves from root; apiMore goes inside the api block, more inside the ark
// block.
func startServingAPISite(t *testing.T, root, apiMore, more string) *caddytest.APISite {
	t.Helper()
	s := &caddytest.APISite{
		DB:    filepath.Join(t.TempDir(), "ark.db"),
		Table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}}),
	}
	s.Site = caddytest.StartSite(t, servingAPISiteBody(s, root, apiMore, more))
	return s
}

// servingAPISiteBody is the site block of a site startServingAPISite
// started as s: to load it again with other settings.
func servingAPISiteBody(s *caddytest.APISite, root, apiMore, more string) string {
	body := caddytest.APISiteBody(s.DB, s.Table, more)
	body = strings.Replace(body, "api /api/ark {", "api /api/ark {\n\t\t\t"+apiMore, 1)
	return strings.Replace(body, `respond "not the API" 418`, "root * "+root+"\n\tfile_server", 1)
}

// A key scoped to one shoulder cannot publish a hidden file by binding an
// identifier to it in place: not by PUT, bulk, mint-and-bind or import,
// in no encoding. Redirects, to private addresses too, and in-place
// targets with dots inside their segments are still bound (issue 20,
// item 2).
func TestAPIKeyCannotPublishHiddenFiles(t *testing.T) {
	s := startServingAPISite(t, testkit.HiddenRoot(t), "", "minter ark:12345/x5 .reeddeedk")
	const reason = "served in place may not have a path segment starting with"
	for id, target := range map[string]string{
		"ark:12345/x5a1": "/.env",
		"ark:12345/x5a2": "/.git/config",
		"ark:12345/x5a3": "/%2Eenv",
		"ark:12345/x5a4": "/%252egit/config",
		"ark:12345/x5a5": "/objects/../.env",
		"ark:12345/x5a6": "/objects/%2e%2e%2F.env",
		"ark:12345/x5a7": "/objects/a%2F.git%2Fconfig",
		"ark:12345/x5a8": "/objects/..%5C.env",
	} {
		got := s.Call("PUT", "/id/"+id, "x5", `{"target": "`+target+`"}`)
		if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, reason) {
			t.Errorf("PUT %s %s: %d %s", id, target, got.Status, got.Body)
		}
		if got := s.Get("/" + id); got.Status != http.StatusNotFound {
			t.Errorf("GET %s after binding it to %s was refused: %d %q", id, target, got.Status, got.Body)
		}
	}
	got := s.Call("POST", "/bulk", "x5", `{"op": "bind", "id": "ark:12345/x5b1", "target": "/.env", "status": 200}`+"\n")
	if !strings.Contains(got.Body, `"status":400`) || !strings.Contains(got.Body, reason) {
		t.Errorf("bulk: %d %s", got.Status, got.Body)
	}
	got = s.Call("PATCH", "/id/ark:12345/x5p1", "x5", `{"target": "/.env"}`, "Content-Type", "application/merge-patch+json")
	if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, reason) {
		t.Errorf("PATCH a new binding to /.env: %d %s", got.Status, got.Body)
	}
	// A redirect to the path is allowed; a PATCH that makes it in place is not.
	if got := s.Call("PUT", "/id/ark:12345/x5p2", "x5", `{"target": "/.env", "status": 302}`); got.Status != http.StatusCreated {
		t.Fatalf("PUT a redirect to /.env: %d %s", got.Status, got.Body)
	}
	got = s.Call("PATCH", "/id/ark:12345/x5p2", "x5", `{"status": 200}`, "Content-Type", "application/merge-patch+json")
	if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, reason) {
		t.Errorf("PATCH a redirect to /.env in place: %d %s", got.Status, got.Body)
	}
	if got := s.Get("/ark:12345/x5p2"); got.Status != http.StatusFound {
		t.Errorf("GET ark:12345/x5p2 after the refused PATCH: %d %q, want the redirect kept", got.Status, got.Body)
	}
	got = s.Call("POST", "/mint/ark:12345/x5", "x5", `{"target": "/.git/config"}`)
	if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, reason) {
		t.Errorf("mint-and-bind: %d %s", got.Status, got.Body)
	}
	got = s.Call("POST", "/import", "x5", `{"entries": [{"id": "ark:12345/x5i1", "target": "/objects/a.txt"}, {"id": "ark:12345/x5i2", "target": "/.env"}]}`)
	if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, reason) {
		t.Errorf("import: %d %s", got.Status, got.Body)
	}
	for _, id := range []string{"ark:12345/x5b1", "ark:12345/x5i1", "ark:12345/x5i2", "ark:12345/x5p1"} {
		s.ExpectUnbound(id)
	}
	for _, p := range []string{"/ark:12345/x5b1", "/ark:12345/x5i2"} {
		if got := s.Get(p); got.Status != http.StatusNotFound {
			t.Errorf("GET %s: %d %q", p, got.Status, got.Body)
		}
	}

	// What stays allowed: public files in place, and redirects, to a
	// private address or a local path too (the client then asks for that
	// URL itself; resolving never fetches a target).
	for id, c := range map[string]struct{ body, location, served string }{
		"ark:12345/x5ok": {body: `{"target": "/objects/a.txt"}`, served: "object a\n"},
		"ark:12345/x5lo": {body: `{"target": "http://127.0.0.1:9/.env"}`, location: "http://127.0.0.1:9/.env"},
		"ark:12345/x5pr": {body: `{"target": "http://10.0.0.1/admin/.git/config", "status": 307}`, location: "http://10.0.0.1/admin/.git/config"},
		"ark:12345/x5rd": {body: `{"target": "/.well-known/x", "status": 302}`, location: "/.well-known/x"},
	} {
		if got := s.Call("PUT", "/id/"+id, "x5", c.body); got.Status != http.StatusCreated {
			t.Errorf("PUT %s %s: %d %s", id, c.body, got.Status, got.Body)
			continue
		}
		got := s.Get("/" + id)
		if got.Location != c.location || (c.served != "" && (got.Status != http.StatusOK || got.Body != c.served)) {
			t.Errorf("GET %s: %d %q %q", id, got.Status, got.Location, got.Body)
		}
	}
}

// The operator limits the API's in-place targets to path prefixes:
// in_place in the api block. Redirects are not limited (issue 20, item 2).
func TestAPIInPlacePrefixes(t *testing.T) {
	s := startServingAPISite(t, testkit.HiddenRoot(t), "in_place /objects/ /media/", "")
	for target, want := range map[string]int{
		"/objects/a.txt":                 http.StatusCreated,
		"/media/m.txt":                   http.StatusCreated,
		"/secret.txt":                    http.StatusBadRequest,
		"/objectsx/a.txt":                http.StatusBadRequest,
		"/%6Fbjects/a.txt":               http.StatusBadRequest,
		"https://repo.example.org/s.txt": http.StatusCreated,
	} {
		id := "ark:12345/x5" + strings.NewReplacer("/", "", ".", "", "%", "", ":", "").Replace(target)
		got := s.Call("PUT", "/id/"+id, "editor", `{"target": "`+target+`"}`)
		if got.Status != want || want == http.StatusBadRequest && !strings.Contains(got.Body, "in_place /objects/ /media/") {
			t.Errorf("PUT %s %s: %d %s, want %d", id, target, got.Status, got.Body, want)
		}
	}
	if got := s.Get("/ark:12345/x5secrettxt"); got.Status != http.StatusNotFound {
		t.Errorf("the refused target is served: %d %q", got.Status, got.Body)
	}
	if got := s.Get("/ark:12345/x5mediamtxt"); got.Status != http.StatusOK || got.Body != "media m\n" {
		t.Errorf("a target under a prefix: %d %q", got.Status, got.Body)
	}
	got := s.Call("POST", "/bulk", "editor", `{"op": "bind", "id": "ark:12345/b1", "target": "/secret.txt"}`+"\n")
	if !strings.Contains(got.Body, `"status":400`) || !strings.Contains(got.Body, "in_place") {
		t.Errorf("bulk: %s", got.Body)
	}
	got = s.Call("POST", "/import", "editor", `{"entries": [{"id": "ark:12345/i1", "target": "/secret.txt"}]}`)
	if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, "in_place") {
		t.Errorf("import: %d %s", got.Status, got.Body)
	}
}

// in_place takes paths that in-place targets could be under.
func TestAPIInPlaceConfigRefused(t *testing.T) {
	s := caddytest.StartSite(t, `respond "first" 200`)
	for _, c := range []struct{ inPlace, want string }{
		{"in_place", "in_place: want one path prefix or more"},
		{"in_place objects/", `in_place "objects/": a path starting with "/"`},
		{"in_place /.git/", `in_place "/.git/": no in-place target`},
		{"in_place /a?b", `in_place "/a?b": a path starting with "/"`},
	} {
		err := s.Load("ark {\n\t\tstore bolt " + filepath.Join(t.TempDir(), "ark.db") + "\n\t\tapi /api/ark {\n\t\t\tkey editor " + caddytest.KeyHash("x") + " write:*\n\t\t\t" + c.inPlace + "\n\t\t}\n\t}")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.inPlace, err, c.want)
		}
	}
	if got := s.Get("/"); got.Body != "first" {
		t.Errorf("the running config after the refusals: %d %q", got.Status, got.Body)
	}
}

// caddy ark import refuses an in-place target to a hidden file, with its
// line, as the API does: an imported list is not the operator's word for
// each of its lines (issue 20, item 2).
func TestImportRefusesHiddenInPlaceTargets(t *testing.T) {
	in := testkit.WriteFile(t, "list.csv", "ark:12345/h1,/objects/h1.html\nark:12345/h2,/.env\nark:12345/h3,/objects/%2e%2e/.git/config,200\nark:12345/h4,https://10.0.0.1/.env\nark:12345/h5,/.well-known/h5,302\n")
	_, stderr, err := caddytest.RunArkCommand(t, "", "import", in)
	want := in + `:2: target "/.env": a target served in place may not have a path segment starting with "."`
	if err == nil || !strings.Contains(stderr, want) || !strings.Contains(stderr, in+":3: target \"/objects/%2e%2e/.git/config\"") || strings.Count(stderr, "\n") != 3 {
		t.Errorf("err %v, stderr:\n%s\nwant lines 2 and 3 refused: %s", err, stderr, want)
	}
}
