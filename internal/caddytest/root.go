package caddytest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ModuleRoot returns the directory of caddy-ark's go.mod, found from the
// test's working directory (its package's directory) upwards.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(data), "module github.com/caddy-ark/caddy-ark\n") {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("caddy-ark's go.mod not found above the working directory")
		}
		dir = parent
	}
}

// SiteRoot is the static site the tests serve in place from: testdata/site
// at the module's root.
func SiteRoot(t testing.TB) string {
	t.Helper()
	return filepath.Join(ModuleRoot(t), "testdata", "site")
}
