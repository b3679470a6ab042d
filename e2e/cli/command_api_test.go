package cli

import (
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

func TestBinaryAPICommands(t *testing.T) {
	s := caddytest.StartAPISite(t, "minter ark:12345/x8 .sdd")
	api := s.Base + "/api/ark"
	t.Setenv("ARK_API_KEY", "editor-secret")

	out, errOut, status := caddytest.RunCaddy(t, "", "ark", "mint", "--api", api, "-n", "3", "ark:12345/x8")
	if want := "ark:12345/x800\nark:12345/x801\nark:12345/x802\n"; status != 0 || out != want {
		t.Errorf("mint: %d %q %q, want %q", status, out, errOut, want)
	}
	out, errOut, status = caddytest.RunCaddy(t, "", "ark", "mint", "--api", api, "--target", "https://repo.example.org/m/{id}", "ark:12345/x8")
	if status != 0 || out != "ark:12345/x803\n" {
		t.Errorf("mint --target: %d %q %q", status, out, errOut)
	}
	if got := s.Get("/ark:12345/x803"); got.Status != 302 || got.Location != "https://repo.example.org/m/ark:12345/x803" {
		t.Errorf("resolving what mint bound: %d %q", got.Status, got.Location)
	}

	out, errOut, status = caddytest.RunCaddy(t, "", "ark", "bind", "--api", api, "--status", "303", "ark:/12345/x5-cli", "https://repo.example.org/cli")
	if want := "ark:12345/x5cli 303 https://repo.example.org/cli (version 1)\n"; status != 0 || out != want {
		t.Errorf("bind: %d %q %q, want %q", status, out, errOut, want)
	}
	if got := s.Get("/ark:12345/x5cli"); got.Status != 303 || got.Location != "https://repo.example.org/cli" {
		t.Errorf("resolving what bind bound: %d %q", got.Status, got.Location)
	}
	_, errOut, status = caddytest.RunCaddy(t, "", "ark", "bind", "--api", api, "ark:12345/x5cli2", "https://repo.example.org/x", "--status", "301")
	if status != 1 || !strings.Contains(errOut, "400 Bad Request: ark:12345/x5cli2: permanent redirects") {
		t.Errorf("bind with a 301: %d %q", status, errOut)
	}
	out, errOut, status = caddytest.RunCaddy(t, "", "ark", "withdraw", "--api", api, "ark:12345/x5cli", "Replaced by ark:12345/x5new")
	if want := "ark:12345/x5cli 410 withdrawn: Replaced by ark:12345/x5new (version 2)\n"; status != 0 || out != want {
		t.Errorf("withdraw: %d %q %q, want %q", status, out, errOut, want)
	}
	out, errOut, status = caddytest.RunCaddy(t, "", "ark", "export", "--api", api)
	if status != 0 {
		t.Fatalf("export: %d %q", status, errOut)
	}
	tbl, err := table.Load([]string{testkit.WriteFile(t, "export.json", out)}, nil)
	if err != nil || tbl.Len() != 2 {
		t.Fatalf("the export does not load: %v\n%s", err, out)
	}
	if a, _ := tbl.Lookup("ark:12345/x5cli"); a.Status != 410 {
		t.Errorf("exported: %+v", a)
	}

	t.Setenv("ARK_API_KEY", "reader-secret")
	if _, errOut, status = caddytest.RunCaddy(t, "", "ark", "bind", "--api", api, "ark:12345/x5r", "/r"); status != 1 || !strings.Contains(errOut, "403 Forbidden: key reader may not write ark:12345/x5r") {
		t.Errorf("bind with a read key: %d %q", status, errOut)
	}
	t.Setenv("ARK_API_KEY", "wrong")
	if _, errOut, status = caddytest.RunCaddy(t, "", "ark", "export", "--api", api); status != 1 || !strings.Contains(errOut, "401 Unauthorized") {
		t.Errorf("export with a wrong key: %d %q", status, errOut)
	}
	t.Setenv("ARK_API_KEY", "")
	if _, errOut, status = caddytest.RunCaddy(t, "", "ark", "export", "--api", api); status != 1 || !strings.Contains(errOut, "no key: set ARK_API_KEY") {
		t.Errorf("export with no key: %d %q", status, errOut)
	}
	s.ExpectUnbound("ark:12345/x5r")
}

func TestBinaryHashKey(t *testing.T) {
	out, errOut, status := caddytest.RunCaddy(t, "editor-secret\n", "ark", "hash-key")
	if status != 0 || out != caddytest.KeyHash("editor-secret")+"\n" {
		t.Errorf("hash-key: %d %q %q", status, out, errOut)
	}
	out, _, status = caddytest.RunCaddy(t, "", "ark", "hash-key", "--new")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if status != 0 || len(lines) != 2 || len(lines[0]) < 26 || lines[1] != caddytest.KeyHash(lines[0]) {
		t.Errorf("hash-key --new: %d %q", status, out)
	}
	if _, errOut, status = caddytest.RunCaddy(t, "\n", "ark", "hash-key"); status != 1 || !strings.Contains(errOut, "empty") {
		t.Errorf("hash-key of nothing: %d %q", status, errOut)
	}
}
