package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// HiddenRoot is a site root holding hidden files beside public ones: a
// ".env", a ".git/config", "secret.txt", "objects/a.txt" and "media/m.txt".
func HiddenRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range map[string]string{
		".env":          "DB_PASSWORD=hunter2\n",
		".git/config":   "[remote \"origin\"]\n\turl = https://token@example.org/x.git\n",
		"secret.txt":    "not for identifiers\n",
		"objects/a.txt": "object a\n",
		"media/m.txt":   "media m\n",
	} {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}
