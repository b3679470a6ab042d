package cli

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/store"
)

// caddy ark ids, retarget, undo and changes against a real Caddy.
func TestBinaryIDsRetargetUndoChanges(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	base := s.Base + "/api/ark"
	var lines []string
	for i := range 1205 {
		lines = append(lines, fmt.Sprintf(`{"op": "bind", "id": "ark:12345/x5c%04d", "target": "https://old.example.org/c/%d"}`, i, i))
	}
	lines = append(lines,
		`{"op": "bind", "id": "ark:12345/b1", "target": "https://old.example.org/b1", "meta": {"who": "Ada Lovelace"}}`,
		`{"op": "withdraw", "id": "ark:12345/b2", "reason": "never published"}`)
	for _, r := range caddytest.BulkResults(t, s.Call("POST", "/bulk", "editor", strings.Join(lines, "\n"))) {
		if r.Status >= 300 {
			t.Fatalf("bulk line %d: %d %s", r.Line, r.Status, r.Error)
		}
	}
	t.Setenv("ARK_API_KEY", "editor-secret")

	// ids: every page, or -n of them; filters; JSON.
	out, errOut, status := caddytest.RunCaddy(t, "", "ark", "ids", "--api", base)
	if got := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); status != 0 || len(got) != 1207 || got[0] != "ark:12345/b1 302 https://old.example.org/b1" || got[1] != "ark:12345/b2 410 " || got[1206] != "ark:12345/x5c1204 302 https://old.example.org/c/1204" {
		t.Fatalf("ids: %d, %d lines, first %q, %q, last %q; %s", status, len(got), got[0], got[1], got[len(got)-1], errOut)
	}
	out, _, status = caddytest.RunCaddy(t, "", "ark", "ids", "--api", base, "--prefix", "ark:/12345/x5", "-n", "3")
	if want := "ark:12345/x5c0000 302 https://old.example.org/c/0\nark:12345/x5c0001 302 https://old.example.org/c/1\nark:12345/x5c0002 302 https://old.example.org/c/2\n"; status != 0 || out != want {
		t.Errorf("ids -n 3: %d %q, want %q", status, out, want)
	}
	out, _, status = caddytest.RunCaddy(t, "", "ark", "ids", "--api", base, "--q", "LOVELACE", "--json")
	var b store.Binding
	if err := json.Unmarshal([]byte(out), &b); status != 0 || err != nil || b.Key != "ark:12345/b1" || b.Meta["who"] != "Ada Lovelace" || strings.Count(out, "\n") != 1 {
		t.Errorf("ids --q --json: %d %q", status, out)
	}
	if out, _, status = caddytest.RunCaddy(t, "", "ark", "ids", "--api", base, "--status", "withdrawn"); status != 0 || out != "ark:12345/b2 410 \n" {
		t.Errorf("ids --status withdrawn: %d %q", status, out)
	}
	if _, errOut, status = caddytest.RunCaddy(t, "", "ark", "ids", "--api", base, "--status", "gone"); status != 1 || !strings.Contains(errOut, "400 Bad Request: status \"gone\"") {
		t.Errorf("ids --status gone: %d %q", status, errOut)
	}

	// retarget: a dry run, then with its token; undo.
	move := []string{"ark", "retarget", "--api", base, "--from", "https://old.example.org/c/", "--to", "https://new.example.org/c/", "--prefix", "ark:12345/x5"}
	out, errOut, status = caddytest.RunCaddy(t, "", append(move, "--dry-run")...)
	token := regexp.MustCompile(`(?m)^token ([0-9a-f]+)$`).FindStringSubmatch(out)
	if status != 0 || !strings.HasPrefix(out, "1205 identifiers would change\nark:12345/x5c0000 https://old.example.org/c/0 -> https://new.example.org/c/0\n") ||
		!strings.Contains(out, "\n… and 1185 more\n") || token == nil {
		t.Fatalf("retarget --dry-run: %d %q %q", status, out, errOut)
	}
	if _, errOut, status = caddytest.RunCaddy(t, "", move...); status != 1 || !strings.Contains(errOut, "give --dry-run") {
		t.Errorf("retarget without --dry-run or --token: %d %q", status, errOut)
	}
	if _, errOut, status = caddytest.RunCaddy(t, "", append(move, "--token", "0123")...); status != 1 || !strings.Contains(errOut, "412 Precondition Failed") {
		t.Errorf("retarget with a wrong token: %d %q", status, errOut)
	}
	out, errOut, status = caddytest.RunCaddy(t, "", append(move, "--token", token[1])...)
	batch := regexp.MustCompile(`^1205 identifiers changed, batch (\d+)\n$`).FindStringSubmatch(out)
	if status != 0 || batch == nil {
		t.Fatalf("retarget --token: %d %q %q", status, out, errOut)
	}
	if got := s.Get("/ark:12345/x5c0007"); got.Location != "https://new.example.org/c/7" {
		t.Errorf("after the retarget: %q", got.Location)
	}
	if got := s.Call("PUT", "/id/ark:12345/x5c0009", "editor", `{"target": "https://elsewhere.example.org/9"}`); got.Status != 200 {
		t.Fatal(got.Body)
	}
	out, errOut, status = caddytest.RunCaddy(t, "", "ark", "undo", "--api", base, batch[1])
	if want := fmt.Sprintf("1204 identifiers restored, batch %d\nskipped ark:12345/x5c0009: changed since\n", mustAtoi(t, batch[1])+1); status != 0 || out != want {
		t.Errorf("undo: %d %q %q, want %q", status, out, errOut, want)
	}
	if got := s.Get("/ark:12345/x5c0007"); got.Location != "https://old.example.org/c/7" {
		t.Errorf("after the undo: %q", got.Location)
	}
	if _, errOut, status = caddytest.RunCaddy(t, "", "ark", "undo", "--api", base, "999"); status != 1 || !strings.Contains(errOut, "404 Not Found: batch 999") {
		t.Errorf("undo of no batch: %d %q", status, errOut)
	}

	// changes: the last ones, as lines and as JSON.
	out, errOut, status = caddytest.RunCaddy(t, "", "ark", "changes", "--api", base, "--prefix", "ark:12345/x5c0009")
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	line := regexp.MustCompile(`^\d+ \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ editor ark:12345/x5c0009 (.*)$`)
	var seen []string
	for _, l := range got {
		if m := line.FindStringSubmatch(l); m != nil {
			seen = append(seen, m[1])
		} else {
			t.Errorf("changes: line %q", l)
		}
	}
	if want := []string{"- -> https://old.example.org/c/9", "https://old.example.org/c/9 -> https://new.example.org/c/9", "https://new.example.org/c/9 -> https://elsewhere.example.org/9"}; status != 0 || strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Errorf("changes --prefix: %d %q %q; want %q", status, seen, errOut, want)
	}
	if out, _, status = caddytest.RunCaddy(t, "", "ark", "changes", "--api", base, "--prefix", "ark:12345/x5c0009", "--writer", "editor"); status != 0 || strings.Count(out, "\n") != 3 {
		t.Errorf("changes --writer editor: %d %q, want its 3 changes", status, out)
	}
	if out, _, status = caddytest.RunCaddy(t, "", "ark", "changes", "--api", base, "--prefix", "ark:12345/x5c0009", "--writer", "person:alice"); status != 0 || out != "" {
		t.Errorf("changes --writer person:alice: %d %q, want none", status, out)
	}
	out, _, status = caddytest.RunCaddy(t, "", "ark", "changes", "--api", base, "--since", "0", "-n", "1300", "--json")
	if n := strings.Count(out, "\n"); status != 0 || n != 1300 {
		t.Errorf("changes -n 1300 --json: %d, %d lines", status, n)
	}
	if out, _, status = caddytest.RunCaddy(t, "", "ark", "changes", "--api", base, "--prefix", "ark:12345/b2"); status != 0 || !strings.HasSuffix(out, " editor ark:12345/b2 - -> 410 never published\n") {
		t.Errorf("changes of a withdrawal: %d %q", status, out)
	}
}

// mustAtoi reads a decimal number.
func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}
