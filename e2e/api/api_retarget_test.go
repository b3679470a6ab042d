package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// retargetFixture binds through the bulk API: ark:12345/x5r000 to x5r<n-1>
// on old.example.org, every tenth on other.example.org instead;
// ark:12345/b1 and urn:isbn:9780000000001 on old.example.org;
// ark:12345/x5gone withdrawn from old.example.org; ark:12345/x5local in
// place. It returns the x5 identifiers on old.example.org.
func retargetFixture(t *testing.T, s *caddytest.APISite, n int) []string {
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
	for _, r := range caddytest.BulkResults(t, s.Call("POST", "/bulk", "editor", strings.Join(lines, "\n"))) {
		if r.Status >= 300 {
			t.Fatalf("bulk line %d: %d %s", r.Line, r.Status, r.Error)
		}
	}
	return old
}

// apiRetarget posts a retarget request with key and decodes a 200 answer
// into out.
func apiRetarget(s *caddytest.APISite, key string, req api.RetargetRequest, out any) caddytest.Answer {
	s.T.Helper()
	body, _ := json.Marshal(req)
	got := s.Call("POST", "/retarget", key, string(body))
	if got.Status == http.StatusOK && out != nil {
		if err := json.Unmarshal([]byte(got.Body), out); err != nil {
			s.T.Fatalf("POST retarget: %v: %s", err, got.Body)
		}
	}
	return got
}

// checkRetarget checks POST retarget and POST batches/<n>/undo on s.
func checkRetarget(t *testing.T, s *caddytest.APISite) {
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
		if got := s.Get("/ark:12345/x5r001"); got.Location != "https://old.example.org/items/r1?v=1" {
			t.Fatalf("before: %d %q", got.Status, got.Location)
		}
	}

	dry := move
	dry.DryRun = true
	var pre api.RetargetPreview
	if got := apiRetarget(s, "editor", dry, &pre); got.Status != http.StatusOK {
		t.Fatalf("dry run: %d %s", got.Status, got.Body)
	}
	if pre.Count != len(old) || len(pre.Changes) != api.PreviewChanges || pre.Token == "" {
		t.Fatalf("dry run: count %d, %d changes, token %q; want %d, %d, a token", pre.Count, len(pre.Changes), pre.Token, len(old), api.PreviewChanges)
	}
	for i, c := range pre.Changes {
		if c.ID != old[i] || c.Old != strings.Replace(newTarget(c.ID), "https://new.example.org/objects/", "https://old.example.org/items/", 1) || c.New != newTarget(c.ID) {
			t.Errorf("preview change %d: %+v; want %s to %s", i, c, old[i], newTarget(old[i]))
		}
	}
	if got := s.Get("/ark:12345/x5r001"); got.Location != "https://old.example.org/items/r1?v=1" {
		t.Errorf("a dry run changed x5r001: %q", got.Location)
	}

	// A change since the preview: its token no longer applies.
	if got := s.Call("PATCH", "/id/ark:12345/x5r002", "editor", `{"meta": {"note": "edited"}}`); got.Status != http.StatusOK {
		t.Fatalf("PATCH: %d %s", got.Status, got.Body)
	}
	stale := move
	stale.Token = pre.Token
	if got := apiRetarget(s, "editor", stale, nil); got.Status != http.StatusPreconditionFailed || !strings.Contains(got.Body, "changed since the preview") {
		t.Errorf("apply with a stale token: %d %s; want 412", got.Status, got.Body)
	}
	if got := s.Get("/ark:12345/x5r001"); got.Location != "https://old.example.org/items/r1?v=1" {
		t.Errorf("a refused retarget changed x5r001: %q", got.Location)
	}
	if got := apiRetarget(s, "editor", dry, &pre); got.Status != http.StatusOK {
		t.Fatal(got.Body)
	}
	apply := move
	apply.Token = pre.Token
	var res api.RetargetResult
	if got := apiRetarget(s, "editor", apply, &res); got.Status != http.StatusOK || res.Count != len(old) || res.Batch == 0 || len(res.Skipped) != 0 {
		t.Fatalf("apply: %d %s; want count %d and a batch", got.Status, got.Body, len(old))
	}
	// The very next request sees every change, the cached one included.
	for _, id := range old {
		if got := s.Get("/" + id); got.Location != newTarget(id) {
			t.Errorf("after the retarget, %s redirects to %q, want %q", id, got.Location, newTarget(id))
		}
	}
	rec := s.Lookup("ark:12345/x5r001")
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
		if b := s.Lookup(id).Binding; b.Target != target {
			t.Errorf("%s: %q after the retarget, want it left as %q", id, b.Target, target)
		}
	}
	if b := s.Lookup("ark:12345/x5gone").Binding; b.Status != http.StatusGone || b.Version != 2 {
		t.Errorf("a withdrawn identifier was retargeted: %+v", b)
	}

	// Undo: all but what changed again since.
	if got := s.Call("PUT", "/id/ark:12345/x5r003", "editor", `{"target": "https://elsewhere.example.org/3"}`); got.Status != http.StatusOK {
		t.Fatal(got.Body)
	}
	undoPath := fmt.Sprintf("/batches/%d/undo", res.Batch)
	if got := s.Call("POST", undoPath, "reader", ""); got.Status != http.StatusForbidden || !strings.Contains(got.Body, "nothing was undone") {
		t.Errorf("undo with a read-only key: %d %s; want 403", got.Status, got.Body)
	}
	undo := apiUndo(s, undoPath)
	if undo.Restored != len(old)-1 || !slices.Equal(undo.Skipped, []string{"ark:12345/x5r003"}) || undo.Batch <= res.Batch {
		t.Errorf("undo: restored %d, skipped %v, batch %d; want %d, [ark:12345/x5r003] and a new batch", undo.Restored, undo.Skipped, undo.Batch, len(old)-1)
	}
	for _, id := range old {
		want := strings.Replace(newTarget(id), "https://new.example.org/objects/", "https://old.example.org/items/", 1)
		if id == "ark:12345/x5r003" {
			want = "https://elsewhere.example.org/3"
		}
		if got := s.Get("/" + id); got.Location != want {
			t.Errorf("after the undo, %s redirects to %q, want %q", id, got.Location, want)
		}
	}
	if b := s.Lookup("ark:12345/x5r002").Binding; b.Meta["note"] != "edited" {
		t.Errorf("undo lost what x5r002 had before the retarget: %+v", b)
	}
	if again := apiUndo(s, undoPath); again.Restored != 0 || len(again.Skipped) != len(old) {
		t.Errorf("undo again: restored %d, skipped %d; want 0 and all %d", again.Restored, len(again.Skipped), len(old))
	}
	if redo := apiUndo(s, fmt.Sprintf("/batches/%d/undo", undo.Batch)); redo.Restored != len(old)-1 || len(redo.Skipped) != 0 {
		t.Errorf("undo of the undo: restored %d, skipped %v; want %d", redo.Restored, redo.Skipped, len(old)-1)
	}
	if got := s.Get("/ark:12345/x5r001"); got.Location != newTarget("ark:12345/x5r001") {
		t.Errorf("after the undo of the undo, x5r001 redirects to %q", got.Location)
	}

	// Scopes: a key retargets what it may write, the rest is left out.
	everywhere := api.RetargetRequest{From: "https://old.example.org/items/", To: "https://new.example.org/objects/", DryRun: true}
	if apiRetarget(s, "x5", everywhere, &pre); pre.Count != 0 {
		t.Errorf("dry run with x5 after the redo: %d, want 0 (its identifiers are moved already)", pre.Count)
	}
	if apiRetarget(s, "editor", everywhere, &pre); pre.Count != 2 || pre.Changes[0].ID != "ark:12345/b1" || pre.Changes[1].ID != "urn:isbn:9780000000001" {
		t.Errorf("dry run with editor everywhere: %+v; want b1 and the ISBN", pre)
	}
	if apiRetarget(s, "reader", everywhere, &pre); pre.Count != 0 {
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
		if got := s.Call("POST", "/retarget", "editor", tt.body); got.Status != tt.status || !strings.Contains(got.Body, tt.reason) {
			t.Errorf("POST retarget %s: %d %s; want %d saying %q", tt.body, got.Status, got.Body, tt.status, tt.reason)
		}
	}
	if got := s.Get("/ark:12345/x5r000"); got.Location != newTarget("ark:12345/x5r000") {
		t.Errorf("a refused retarget changed x5r000: %q", got.Location)
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
		if got := s.Call(tt.method, tt.path, "editor", ""); got.Status != tt.status {
			t.Errorf("%s %s: %d %s; want %d", tt.method, tt.path, got.Status, got.Body, tt.status)
		}
	}
}

// apiUndo posts an undo with the editor's key and decodes its 200 answer.
func apiUndo(s *caddytest.APISite, path string) api.UndoResult {
	s.T.Helper()
	return apiUndoAs(s, "editor", path)
}

// apiUndoAs posts an undo with key and decodes its 200 answer.
func apiUndoAs(s *caddytest.APISite, key, path string) api.UndoResult {
	s.T.Helper()
	var res api.UndoResult
	got := s.Call("POST", path, key, "")
	if err := json.Unmarshal([]byte(got.Body), &res); err != nil || got.Status != http.StatusOK {
		s.T.Fatalf("POST %s: %d %s", path, got.Status, got.Body)
	}
	return res
}

func TestAPIRetarget(t *testing.T) {
	checkRetarget(t, caddytest.StartAPISite(t, ""))
}

func TestPostgresAPIRetarget(t *testing.T) {
	checkRetarget(t, startPGAPISite(t, ""))
}
