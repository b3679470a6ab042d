package caddytest

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/api"
)

// Minted decodes the ids of a mint answer.
func Minted(t *testing.T, got Answer) []string {
	t.Helper()
	var res struct{ IDs []string }
	if err := json.Unmarshal([]byte(got.Body), &res); err != nil {
		t.Fatalf("%v: %s", err, got.Body)
	}
	return res.IDs
}

// BulkResults decodes the result lines of a bulk answer.
func BulkResults(t *testing.T, got Answer) []api.BulkResult {
	t.Helper()
	if got.Status != http.StatusOK || got.Header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("bulk: %d %s %s", got.Status, got.Header.Get("Content-Type"), got.Body)
	}
	var results []api.BulkResult
	sc := bufio.NewScanner(strings.NewReader(got.Body))
	for sc.Scan() {
		var r api.BulkResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("result line %q: %v", sc.Text(), err)
		}
		results = append(results, r)
	}
	return results
}
