package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// An import that the store refuses part way (an identifier bound
// differently) is answered with the store's reason, 409, whatever the
// format of the body: the reader of a long body, still ahead of the
// store when it stopped, is no reason of its own. Nothing of it is kept.
func TestImportConflictIsTheStoresReasonInEveryFormat(t *testing.T) {
	caddytest.OnBothStores(t, func(t *testing.T, s *caddytest.APISite, _ string) { importConflict(t, s) })
}

func importConflict(t *testing.T, s *caddytest.APISite) {
	if got := s.Call("PUT", "/id/ark:12345/c0", "editor", `{"target": "https://first.example.org/"}`); got.Status != http.StatusCreated {
		t.Fatalf("bind: %d %s", got.Status, got.Body)
	}
	const n = 5000 // far more than the reader may be ahead of the store
	var csv, table strings.Builder
	csv.WriteString("id,target\n")
	table.WriteString(`{"entries": [`)
	for i := range n {
		csv.WriteString(fmt.Sprintf("ark:12345/c%d,https://other.example.org/%d\n", i, i))
		if i > 0 {
			table.WriteString(",")
		}
		table.WriteString(fmt.Sprintf(`{"id": "ark:12345/c%d", "target": "https://other.example.org/%d"}`, i, i))
	}
	table.WriteString("]}")
	for format, body := range map[string]string{"csv": csv.String(), "json": table.String()} {
		got := s.Call("POST", "/import?format="+format, "editor", body)
		if got.Status != http.StatusConflict || !strings.Contains(got.Body, "ark:12345/c0") {
			t.Errorf("%s: %d %s, want 409 naming ark:12345/c0", format, got.Status, got.Body)
		}
		s.ExpectUnbound("ark:12345/c1")
		s.ExpectUnbound(fmt.Sprintf("ark:12345/c%d", n-1))
	}
}
