package cli

import (
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// metaFile writes content to a new file for --meta-file and returns its
// path.
func metaFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "meta.json")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBinaryBindKeepsWhatItIsNotTold checks that caddy ark bind changes
// only what it is given, and that bind and mint set metadata with --meta
// and --meta-file. Main's bind was a PUT: it erased the metadata and
// status, and neither command had --meta.
func TestBinaryBindKeepsWhatItIsNotTold(t *testing.T) {
	s := caddytest.StartAPISite(t, "minter ark:12345/x8 .sdd")
	api := s.Base + "/api/ark"
	t.Setenv("ARK_API_KEY", "editor-secret")
	const id = "ark:12345/x5keep"
	if got := s.Call("PUT", "/id/"+id, "editor", `{"target": "https://repo.example.org/k1", "status": 303, "meta": {"who": "Example Museum"}}`); got.Status != http.StatusCreated {
		t.Fatalf("PUT: %d %s", got.Status, got.Body)
	}
	out, errOut, status := caddytest.RunCaddy(t, "", "ark", "bind", "--api", api, id, "https://repo.example.org/k2")
	if want := id + " 303 https://repo.example.org/k2 (version 2)\n"; status != 0 || out != want {
		t.Errorf("bind a new target: %d %q %q, want %q", status, out, errOut, want)
	}
	if b := s.Lookup(id).Binding; !maps.Equal(b.Meta, map[string]string{"who": "Example Museum"}) {
		t.Errorf("bind erased the metadata: %+v", b)
	}

	file := metaFile(t, `{"what": "A vase", "who": null, "when": "1890"}`)
	out, errOut, status = caddytest.RunCaddy(t, "", "ark", "bind", "--api", api, "--meta-file", file, "--meta", "when=1891", "--meta", "where=a=b", "--no-passthrough", id)
	if want := id + " 303 https://repo.example.org/k2 (version 3)\n"; status != 0 || out != want {
		t.Errorf("bind --meta without a target: %d %q %q, want %q", status, out, errOut, want)
	}
	b := s.Lookup(id).Binding
	if !maps.Equal(b.Meta, map[string]string{"what": "A vase", "when": "1891", "where": "a=b"}) || b.Passthrough {
		t.Errorf("after bind --meta-file --meta: %+v", b)
	}
	if got := s.Get("/" + id + "?info"); !strings.Contains(got.Body, "A vase") {
		t.Errorf("?info: %s", got.Body)
	}
	out, errOut, status = caddytest.RunCaddy(t, "", "ark", "bind", "--api", api, "--meta", "what=", "--status", "0", "--no-passthrough=false", id)
	if want := id + " 302 https://repo.example.org/k2 (version 4)\n"; status != 0 || out != want {
		t.Errorf("bind removing a key: %d %q %q, want %q", status, out, errOut, want)
	}
	if b := s.Lookup(id).Binding; !maps.Equal(b.Meta, map[string]string{"when": "1891", "where": "a=b"}) || !b.Passthrough {
		t.Errorf("after bind --meta what=: %+v", b)
	}

	// A new binding, with metadata.
	out, errOut, status = caddytest.RunCaddy(t, "", "ark", "bind", "--api", api, "--meta", "who=A", "ark:12345/x5new", "/objects/new")
	if want := "ark:12345/x5new 200 /objects/new (version 1)\n"; status != 0 || out != want {
		t.Errorf("bind a new id: %d %q %q, want %q", status, out, errOut, want)
	}
	if b := s.Lookup("ark:12345/x5new").Binding; b.Meta["who"] != "A" {
		t.Errorf("bind a new id with --meta: %+v", b)
	}

	// Mint and bind with metadata.
	out, errOut, status = caddytest.RunCaddy(t, "", "ark", "mint", "--api", api, "--target", "https://repo.example.org/m/{name}", "--meta", "who=B", "--meta", "what=", "ark:12345/x8")
	if status != 0 || out != "ark:12345/x800\n" {
		t.Fatalf("mint --meta: %d %q %q", status, out, errOut)
	}
	if b := s.Lookup("ark:12345/x800").Binding; b.Target != "https://repo.example.org/m/x800" || !maps.Equal(b.Meta, map[string]string{"who": "B"}) {
		t.Errorf("minted with --meta: %+v", b)
	}
	if _, errOut, status = caddytest.RunCaddy(t, "", "ark", "mint", "--api", api, "--meta", "who=B", "ark:12345/x8"); status != 1 || !strings.Contains(errOut, "400 Bad Request") {
		t.Errorf("mint --meta without a target: %d %q", status, errOut)
	}

	for _, c := range []struct {
		args   []string
		reason string
	}{
		{[]string{id}, "nothing to change"},
		{[]string{"--meta", "who", id}, `--meta "who": give key=value`},
		{[]string{"--meta-file", metaFile(t, `{"who": 1}`), id}, "the value must be a string"},
		{[]string{"--meta-file", metaFile(t, `{"who": "a", "who": "b"}`), id}, "appears twice"},
	} {
		_, errOut, status := caddytest.RunCaddy(t, "", append([]string{"ark", "bind", "--api", api}, c.args...)...)
		if status != 1 || !strings.Contains(errOut, c.reason) {
			t.Errorf("bind %v: %d %q, want %q", c.args, status, errOut, c.reason)
		}
	}
	if b := s.Lookup(id).Binding; b.Version != 4 {
		t.Errorf("changed by a refused bind: %+v", b)
	}
}
