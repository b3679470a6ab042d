package ark

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/api"
)

// retargetFixture binds through the bulk API: ark:12345/x5r000 to x5r<n-1>
// on old.example.org, every tenth on other.example.org instead;
// ark:12345/b1 and urn:isbn:9780000000001 on old.example.org;
// ark:12345/x5gone withdrawn from old.example.org; ark:12345/x5local in
// place. It returns the x5 identifiers on old.example.org.
func retargetFixture(t *testing.T, s *apiSite, n int) []string {
	t.Helper()
	var lines, old []string
	bind := func(id, target string) {
		lines = append(lines, fmt.Sprintf(`{"op": "bind", "id": %q, "target": %q}`, id, target))
	}
	for i := range n {
		id := fmt.Sprintf("ark:12345/x5r%03d", i)
		if i%10 == 9 {
			bind(id, "https://other.example.org/r"+fmt.Sprint(i))
			continue
		}
		bind(id, fmt.Sprintf("https://old.example.org/items/r%d?v=1", i))
		old = append(old, id)
	}
	bind("ark:12345/b1", "https://old.example.org/items/b1")
	bind("urn:isbn:9780000000001", "https://old.example.org/items/isbn1")
	bind("ark:12345/x5gone", "https://old.example.org/items/gone")
	bind("ark:12345/x5local", "/objects/local.html")
	lines = append(lines, `{"op": "withdraw", "id": "ark:12345/x5gone", "reason": "duplicate"}`)
	for _, r := range bulkResults(t, s.call("POST", "/bulk", "editor", strings.Join(lines, "\n"))) {
		if r.Status >= 300 {
			t.Fatalf("bulk line %d: %d %s", r.Line, r.Status, r.Error)
		}
	}
	return old
}

// retarget posts a retarget request with key and decodes a 200 answer
// into out.
func (s *apiSite) retarget(key string, req api.RetargetRequest, out any) answer {
	s.t.Helper()
	body, _ := json.Marshal(req)
	got := s.call("POST", "/retarget", key, string(body))
	if got.status == http.StatusOK && out != nil {
		if err := json.Unmarshal([]byte(got.body), out); err != nil {
			s.t.Fatalf("POST retarget: %v: %s", err, got.body)
		}
	}
	return got
}

// checkRetarget checks POST retarget and POST batches/<n>/undo on s.
func checkRetarget(t *testing.T, s *apiSite) {
	old := retargetFixture(t, s, 1100)
	move := api.RetargetRequest{From: "https://old.example.org/items/", To: "https://new.example.org/objects/", Prefix: "ark:/12345/x5"}
	newTarget := func(id string) string {
		n := strings.TrimPrefix(id, "ark:12345/x5r")
		for len(n) > 1 && n[0] == '0' {
			n = n[1:]
		}
		return "https://new.example.org/objects/r" + n + "?v=1"
	}
	// Resolve one first, so that it is cached.
	for range 2 {
		if got := s.get("/ark:12345/x5r001"); got.location != "https://old.example.org/items/r1?v=1" {
			t.Fatalf("before: %d %q", got.status, got.location)
		}
	}

	dry := move
	dry.DryRun = true
	var pre api.RetargetPreview
	if got := s.retarget("editor", dry, &pre); got.status != http.StatusOK {
		t.Fatalf("dry run: %d %s", got.status, got.body)
	}
	if pre.Count != len(old) || len(pre.Changes) != api.PreviewChanges || pre.Token == "" {
		t.Fatalf("dry run: count %d, %d changes, token %q; want %d, %d, a token", pre.Count, len(pre.Changes), pre.Token, len(old), api.PreviewChanges)
	}
	for i, c := range pre.Changes {
		if c.ID != old[i] || c.Old != strings.Replace(newTarget(c.ID), "https://new.example.org/objects/", "https://old.example.org/items/", 1) || c.New != newTarget(c.ID) {
			t.Errorf("preview change %d: %+v; want %s to %s", i, c, old[i], newTarget(old[i]))
		}
	}
	if got := s.get("/ark:12345/x5r001"); got.location != "https://old.example.org/items/r1?v=1" {
		t.Errorf("a dry run changed x5r001: %q", got.location)
	}

	// A change since the preview: its token no longer applies.
	if got := s.call("PATCH", "/id/ark:12345/x5r002", "editor", `{"meta": {"note": "edited"}}`); got.status != http.StatusOK {
		t.Fatalf("PATCH: %d %s", got.status, got.body)
	}
	stale := move
	stale.Token = pre.Token
	if got := s.retarget("editor", stale, nil); got.status != http.StatusPreconditionFailed || !strings.Contains(got.body, "changed since the preview") {
		t.Errorf("apply with a stale token: %d %s; want 412", got.status, got.body)
	}
	if got := s.get("/ark:12345/x5r001"); got.location != "https://old.example.org/items/r1?v=1" {
		t.Errorf("a refused retarget changed x5r001: %q", got.location)
	}
	if got := s.retarget("editor", dry, &pre); got.status != http.StatusOK {
		t.Fatal(got.body)
	}
	apply := move
	apply.Token = pre.Token
	var res api.RetargetResult
	if got := s.retarget("editor", apply, &res); got.status != http.StatusOK || res.Count != len(old) || res.Batch == 0 || len(res.Skipped) != 0 {
		t.Fatalf("apply: %d %s; want count %d and a batch", got.status, got.body, len(old))
	}
	// The very next request sees every change, the cached one included.
	for _, id := range old {
		if got := s.get("/" + id); got.location != newTarget(id) {
			t.Errorf("after the retarget, %s redirects to %q, want %q", id, got.location, newTarget(id))
		}
	}
	rec := s.lookup("ark:12345/x5r001")
	last := rec.History[len(rec.History)-1]
	if last.By != "editor" || last.Batch != res.Batch || last.Old.Target != "https://old.example.org/items/r1?v=1" {
		t.Errorf("the history of x5r001 ends with %+v; want the retarget by editor in batch %d", last, res.Batch)
	}
	for id, target := range map[string]string{
		"ark:12345/b1":           "https://old.example.org/items/b1",    // outside the prefix
		"urn:isbn:9780000000001": "https://old.example.org/items/isbn1", // outside the prefix
		"ark:12345/x5r009":       "https://other.example.org/r9",        // another target
		"ark:12345/x5local":      "/objects/local.html",
	} {
		if b := s.lookup(id).Binding; b.Target != target {
			t.Errorf("%s: %q after the retarget, want it left as %q", id, b.Target, target)
		}
	}
	if b := s.lookup("ark:12345/x5gone").Binding; b.Status != http.StatusGone || b.Version != 2 {
		t.Errorf("a withdrawn identifier was retargeted: %+v", b)
	}

	// Undo: all but what changed again since.
	if got := s.call("PUT", "/id/ark:12345/x5r003", "editor", `{"target": "https://elsewhere.example.org/3"}`); got.status != http.StatusOK {
		t.Fatal(got.body)
	}
	undoPath := fmt.Sprintf("/batches/%d/undo", res.Batch)
	if got := s.call("POST", undoPath, "reader", ""); got.status != http.StatusForbidden || !strings.Contains(got.body, "nothing was undone") {
		t.Errorf("undo with a read-only key: %d %s; want 403", got.status, got.body)
	}
	undo := s.undo(undoPath)
	if undo.Restored != len(old)-1 || !slices.Equal(undo.Skipped, []string{"ark:12345/x5r003"}) || undo.Batch <= res.Batch {
		t.Errorf("undo: restored %d, skipped %v, batch %d; want %d, [ark:12345/x5r003] and a new batch", undo.Restored, undo.Skipped, undo.Batch, len(old)-1)
	}
	for _, id := range old {
		want := strings.Replace(newTarget(id), "https://new.example.org/objects/", "https://old.example.org/items/", 1)
		if id == "ark:12345/x5r003" {
			want = "https://elsewhere.example.org/3"
		}
		if got := s.get("/" + id); got.location != want {
			t.Errorf("after the undo, %s redirects to %q, want %q", id, got.location, want)
		}
	}
	if b := s.lookup("ark:12345/x5r002").Binding; b.Meta["note"] != "edited" {
		t.Errorf("undo lost what x5r002 had before the retarget: %+v", b)
	}
	if again := s.undo(undoPath); again.Restored != 0 || len(again.Skipped) != len(old) {
		t.Errorf("undo again: restored %d, skipped %d; want 0 and all %d", again.Restored, len(again.Skipped), len(old))
	}
	if redo := s.undo(fmt.Sprintf("/batches/%d/undo", undo.Batch)); redo.Restored != len(old)-1 || len(redo.Skipped) != 0 {
		t.Errorf("undo of the undo: restored %d, skipped %v; want %d", redo.Restored, redo.Skipped, len(old)-1)
	}
	if got := s.get("/ark:12345/x5r001"); got.location != newTarget("ark:12345/x5r001") {
		t.Errorf("after the undo of the undo, x5r001 redirects to %q", got.location)
	}

	// Scopes: a key retargets what it may write, the rest is left out.
	everywhere := api.RetargetRequest{From: "https://old.example.org/items/", To: "https://new.example.org/objects/", DryRun: true}
	if s.retarget("x5", everywhere, &pre); pre.Count != 0 {
		t.Errorf("dry run with x5 after the redo: %d, want 0 (its identifiers are moved already)", pre.Count)
	}
	if s.retarget("editor", everywhere, &pre); pre.Count != 2 || pre.Changes[0].ID != "ark:12345/b1" || pre.Changes[1].ID != "urn:isbn:9780000000001" {
		t.Errorf("dry run with editor everywhere: %+v; want b1 and the ISBN", pre)
	}
	if s.retarget("reader", everywhere, &pre); pre.Count != 0 {
		t.Errorf("dry run with a read-only key: %+v; want nothing", pre)
	}

	for _, tt := range []struct {
		body   string
		status int
		reason string
	}{
		{`{"from": "https://new.example.org/objects/", "to": "", "dry_run": true}`, http.StatusBadRequest, "ark:12345/x5r000:"},
		{`{"from": "/objects/", "to": "/.git/", "dry_run": true}`, http.StatusBadRequest, "ark:12345/x5local:"},
		{`{"from": "https://new.example.org/objects/", "to": "", "token": "x"}`, http.StatusBadRequest, "ark:12345/x5r000:"},
		{`{"from": "", "to": "https://x.example.org/"}`, http.StatusBadRequest, "from"},
		{`{"from": "https://a.example.org/", "to": "https://a.example.org/"}`, http.StatusBadRequest, "the same"},
		{`{"from": "https://a.example.org/", "to": "https://b.example.org/", "prefix": "doi:10.1"}`, http.StatusBadRequest, "prefix"},
		{`{"from": "https://a.example.org/", "to": "https://b.example.org/", "dryrun": true}`, http.StatusBadRequest, "dryrun"},
	} {
		if got := s.call("POST", "/retarget", "editor", tt.body); got.status != tt.status || !strings.Contains(got.body, tt.reason) {
			t.Errorf("POST retarget %s: %d %s; want %d saying %q", tt.body, got.status, got.body, tt.status, tt.reason)
		}
	}
	if got := s.get("/ark:12345/x5r000"); got.location != newTarget("ark:12345/x5r000") {
		t.Errorf("a refused retarget changed x5r000: %q", got.location)
	}
	for _, tt := range []struct {
		method, path string
		status       int
	}{
		{"POST", "/batches/999999/undo", http.StatusNotFound},
		{"POST", "/batches/x/undo", http.StatusNotFound},
		{"POST", "/batches/1/redo", http.StatusNotFound},
		{"GET", "/batches/1/undo", http.StatusMethodNotAllowed},
		{"GET", "/retarget", http.StatusMethodNotAllowed},
	} {
		if got := s.call(tt.method, tt.path, "editor", ""); got.status != tt.status {
			t.Errorf("%s %s: %d %s; want %d", tt.method, tt.path, got.status, got.body, tt.status)
		}
	}
}

// undo posts an undo with the editor's key and decodes its 200 answer.
func (s *apiSite) undo(path string) api.UndoResult {
	s.t.Helper()
	return s.undoAs("editor", path)
}

// undoAs posts an undo with key and decodes its 200 answer.
func (s *apiSite) undoAs(key, path string) api.UndoResult {
	s.t.Helper()
	var res api.UndoResult
	got := s.call("POST", path, key, "")
	if err := json.Unmarshal([]byte(got.body), &res); err != nil || got.status != http.StatusOK {
		s.t.Fatalf("POST %s: %d %s", path, got.status, got.body)
	}
	return res
}

func TestAPIRetarget(t *testing.T) {
	checkRetarget(t, startAPISite(t, ""))
}

func TestPostgresAPIRetarget(t *testing.T) {
	checkRetarget(t, startPGAPISite(t, ""))
}
