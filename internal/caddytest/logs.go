package caddytest

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// LogEntries returns the entries of Caddy's JSON log file at path whose
// "msg" is msg. A line still being written is left for the next call.
func LogEntries(t *testing.T, path, msg string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var entries []map[string]any
	for len(data) > 0 {
		line, rest, complete := bytes.Cut(data, []byte("\n"))
		if !complete {
			break
		}
		data = rest
		var e map[string]any
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("%s: %q: %v", path, line, err)
		}
		if e["msg"] == msg {
			entries = append(entries, e)
		}
	}
	return entries
}
