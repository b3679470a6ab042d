package caddytest

import (
	"encoding/json"
	"testing"

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
