package console

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

func TestConsoleChanges(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	s.Call("PUT", "/id/ark:12345/x5a", "editor", `{"target": "https://old.example.org/a"}`)
	s.Call("PATCH", "/id/ark:12345/x5a", "editor", `{"target": "https://new.example.org/a", "meta": {"who": "B"}}`, "Content-Type", "application/merge-patch+json")
	s.Call("POST", "/withdraw/ark:12345/y7b", "editor", `{"reason": "lost"}`)
	s.Call("PUT", "/id/urn:isbn:978-3-16-148410-0", "editor", `{"target": "https://books.example.org/1"}`)

	editor := s.SignIn("editor")
	got := editor.Get("changes")
	want := []string{
		"ark:12345/x5a: bound to https://old.example.org/a (302)",
		"ark:12345/x5a: target https://old.example.org/a → https://new.example.org/a; who: B",
		"ark:12345/y7b: withdrawn: lost",
		"urn:isbn:978-3-16-148410-0: bound to https://books.example.org/1 (302)",
	}
	if rows := caddytest.ChangeFeed(got.Body); got.Status != http.StatusOK || fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Errorf("the editor's feed: %d\n%q\nwant\n%q", got.Status, rows, want)
	}
	if !strings.Contains(got.Body, "<td><span class=\"cell-label\">By </span>editor</td>") {
		t.Errorf("the feed does not say who: %s", got.Body)
	}
	if rows := caddytest.ChangeFeed(editor.Get("changes?prefix=urn:isbn&period=1h").Body); fmt.Sprint(rows) != fmt.Sprint(want[3:]) {
		t.Errorf("the feed under urn:isbn: %q", rows)
	}
	if got := editor.Get("changes?prefix=ark:"); got.Status != http.StatusBadRequest || !strings.Contains(got.Body, "prefix") {
		t.Errorf("a bad prefix: %d %s", got.Status, got.Body)
	}
	// x5 reads its shoulder only.
	if rows := caddytest.ChangeFeed(s.SignIn("x5").Get("changes").Body); fmt.Sprint(rows) != fmt.Sprint(want[:2]) {
		t.Errorf("x5's feed: %q", rows)
	}
}

func TestConsoleChangesPages(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	// Bulk lines, each its change: an import's history is written by the
	// bolt store after the import answers.
	var lines []string
	for i := range 105 {
		lines = append(lines, fmt.Sprintf(`{"op": "bind", "id": "ark:12345/x5c%03d", "target": "https://c.example.org/%d"}`, i, i))
	}
	if got := s.Call("POST", "/bulk", "editor", strings.Join(lines, "\n")); got.Status != http.StatusOK || strings.Contains(got.Body, `"error"`) {
		t.Fatalf("bulk: %d %s", got.Status, got.Body)
	}
	editor := s.SignIn("editor")
	first := editor.Get("changes?period=1h")
	rows := caddytest.ChangeFeed(first.Body)
	next := regexp.MustCompile(`<a href="/api/ark/ui/(changes\?[^"]+)" rel="next">Later changes</a>`).FindStringSubmatch(first.Body)
	if len(rows) != 100 || next == nil || !strings.HasPrefix(rows[0], "ark:12345/x5c000:") {
		t.Fatalf("first page: %d rows, next %v", len(rows), next)
	}
	rest := caddytest.ChangeFeed(editor.Get(strings.ReplaceAll(next[1], "&amp;", "&")).Body)
	if len(rest) != 5 || !strings.HasPrefix(rest[4], "ark:12345/x5c104:") {
		t.Errorf("second page: %q", rest)
	}
}
