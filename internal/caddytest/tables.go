package caddytest

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// TableJSON is a table file holding entries, on one line.
func TableJSON(t *testing.T, entries ...table.Entry) string {
	t.Helper()
	data, err := json.Marshal(map[string]any{"entries": entries})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// CompileFile compiles the JSON content into a compiled table and returns
// its path.
func CompileFile(t *testing.T, content string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "table.arkt")
	if _, err := table.Compile([]string{testkit.WriteFile(t, "src.json", content)}, out); err != nil {
		t.Fatal(err)
	}
	return out
}
