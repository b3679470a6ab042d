package testkit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// WriteFile writes content to a new file name in a temporary directory
// of t and returns its path.
func WriteFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// WriteTable writes entries ({"entries": entries}) as a table file and returns its path.
func WriteTable(t *testing.T, entries any) string {
	t.Helper()
	data, err := json.MarshalIndent(map[string]any{"entries": entries}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return WriteFile(t, "table.json", string(data))
}

// ReadFile returns the content of the file at path.
func ReadFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// ReplaceFile writes content to path the way editors save: to a temporary
// file in the same directory, renamed over path.
func ReplaceFile(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
