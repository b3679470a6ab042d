package cli

import (
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

func TestBinaryCheck(t *testing.T) {
	a := testkit.WriteFile(t, "a.json", `{"entries": [
		{"id": "ark:12345/x5wf6789", "target": "/objects/x5wf6789.html"},
		{"id": "ark:/12345/x5-wf6789", "target": "/objects/x5wf6789.html"},
		{"id": "ark:12345/x5abcd", "target": "https://repo.example.org/abcd", "status": 303},
		{"id": "urn:nbn:de:101-2024", "target": "https://repo.example.org/t"}]}`)
	b := testkit.WriteFile(t, "b.json", `{"entries": [{"id": "ark:67890/g5h6j7", "status": 410}]}`)
	out, errOut, status := caddytest.RunCaddy(t, "", "ark", "check", a, b)
	want := a + ": 3 identifiers\n" + b + ": 1 identifier\n" +
		"ok: 4 identifiers (3 ARKs under NAANs 12345, 67890; 1 URN): 1 in place, 1 redirected, 1 related (303), 1 withdrawn (410)\n"
	if status != 0 || out != want {
		t.Errorf("good tables: status %d, stdout:\n%s\nwant:\n%s\nstderr: %s", status, out, want, errOut)
	}

	conflict := testkit.WriteFile(t, "c.json", `{"entries": [
		{"id": "ark:12345/x5-abcd", "target": "https://repo.example.org/other"}]}`)
	_, errOut, status = caddytest.RunCaddy(t, "", "ark", "check", a, conflict)
	if status != 1 || !strings.Contains(errOut, conflict+":2: entry 0") || !strings.Contains(errOut, a+" entry 2 ") {
		t.Errorf("conflicting tables: status %d, stderr %q", status, errOut)
	}
	bad := testkit.WriteFile(t, "bad.json", "{\"entries\": [\n{\"id\": \"ark:12345/x\", \"target\": \"/x\", \"status\": 301}]}")
	_, errOut, status = caddytest.RunCaddy(t, "", "ark", "check", bad)
	if status != 1 || !strings.Contains(errOut, bad+":2: entry 0: permanent redirects") {
		t.Errorf("a 301: status %d, stderr %q", status, errOut)
	}
	if _, _, status = caddytest.RunCaddy(t, "", "ark", "check"); status != 1 {
		t.Errorf("no file: status %d", status)
	}
}
