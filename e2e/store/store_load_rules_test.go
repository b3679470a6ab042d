package store

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// caddy ark store load refuses a dump binding that no write makes, such
// as a permanent redirect (a dump edited by hand): nothing is loaded, and
// the error names the line and the rule. An in-place target is loaded as
// the dump holds it: a dump is the operator's file, as a table is, and
// the rule that keys and imports keep for in-place targets is not its.
func TestStoreLoadRefusesWhatNoWriteMakes(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	for id, body := range map[string]string{
		"ark:12345/x5a": `{"target": "https://a.example.org/"}`,
		"ark:12345/x5b": `{"target": "/objects/b.txt"}`,
	} {
		if got := s.Call("PUT", "/id/"+id, "editor", body); got.Status != http.StatusCreated {
			t.Fatalf("PUT %s: %d %s", id, got.Status, got.Body)
		}
	}
	caddytest.StartSite(t, `respond "elsewhere" 200`) // Caddy lets go of the file
	dump, stderr, status := caddytest.RunCaddy(t, "", "ark", "store", "dump", "--store", s.DB)
	if status != 0 {
		t.Fatalf("store dump: %d %s", status, stderr)
	}
	for _, c := range []struct{ what, old, new, says string }{
		{"a permanent redirect", `"target":"https://a.example.org/","status":302`, `"target":"https://a.example.org/","status":301`, "permanent redirects"},
		{"an unknown status", `"target":"https://a.example.org/","status":302`, `"target":"https://a.example.org/","status":399`, "status 399"},
		{"a URL served in place", `"target":"/objects/b.txt","status":200`, `"target":"https://b.example.org/","status":200`, "status 200 serves in place"},
		{"the checker's name for the site", `"target":"https://a.example.org/"`, `"target":"http://site.internal.invalid/admin"`, "the target checker's name for the site itself"},
	} {
		edited := strings.Replace(dump, c.old, c.new, 1)
		if edited == dump {
			t.Fatalf("%s: the dump holds no %s:\n%s", c.what, c.old, dump)
		}
		db := filepath.Join(t.TempDir(), "loaded.db")
		_, stderr, status := caddytest.RunCaddy(t, edited, "ark", "store", "load", "--store", db)
		if status == 0 || !strings.Contains(stderr, "nothing loaded") || !strings.Contains(stderr, "line 2: ark:12345/x5a: ") && !strings.Contains(stderr, "line 3: ark:12345/x5b: ") || !strings.Contains(stderr, c.says) {
			t.Errorf("loading a dump holding %s: status %d, %s", c.what, status, stderr)
		}
		loaded := caddytest.StartSite(t, caddytest.APISiteBody(db, s.Table, ""))
		if got := loaded.Get("/ark:12345/x5a"); got.Status != http.StatusNotFound {
			t.Errorf("after the refused load of %s: %d %q", c.what, got.Status, got.Location)
		}
	}

	db := filepath.Join(t.TempDir(), "inplace.db")
	if _, stderr, status := caddytest.RunCaddy(t, strings.Replace(dump, `"/objects/b.txt"`, `"/.well-known/b.txt"`, 1), "ark", "store", "load", "--store", db); status != 0 {
		t.Fatalf("loading a dump with an in-place target under a hidden segment: %d %s", status, stderr)
	}
}

// A store loaded from a dump holding an identifier that a table assigns
// is not served with that table: the config is refused, naming the
// table's entry, as for a store that the API wrote (an identifier has
// one source).
func TestStoreLoadedMayNotHoldWhatATableAssigns(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	if got := s.Call("PUT", "/id/ark:12345/x5a", "editor", `{"target": "https://a.example.org/"}`); got.Status != http.StatusCreated {
		t.Fatalf("PUT: %d %s", got.Status, got.Body)
	}
	caddytest.StartSite(t, `respond "elsewhere" 200`) // Caddy lets go of the file
	dump, stderr, status := caddytest.RunCaddy(t, "", "ark", "store", "dump", "--store", s.DB)
	if status != 0 {
		t.Fatalf("store dump: %d %s", status, stderr)
	}
	db := filepath.Join(t.TempDir(), "loaded.db")
	if _, stderr, status := caddytest.RunCaddy(t, strings.ReplaceAll(dump, "ark:12345/x5a", "ark:12345/t1"), "ark", "store", "load", "--store", db); status != 0 {
		t.Fatalf("store load: %d %s", status, stderr)
	}
	err := caddytest.NewOpsSite(t).Load(caddytest.APISiteBody(db, s.Table, ""))
	if err == nil || !strings.Contains(err.Error(), s.Table+":") || !strings.Contains(err.Error(), "ark:12345/t1 is bound in the store") || !strings.Contains(err.Error(), "one source") {
		t.Errorf("a config whose table assigns what the loaded store holds: %v", err)
	}
}
