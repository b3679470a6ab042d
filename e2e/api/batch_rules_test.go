package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// An undo gives back only what PUT would bind now (issue 20's rules on
// the newer write paths): once the api block's in_place no longer covers
// an in-place target a batch replaced, undoing the batch is refused,
// naming the identifier, and changes nothing; with in_place covering it
// again, the same undo restores it.
func TestAPIUndoRestoresOnlyWhatPUTWouldBind(t *testing.T) {
	root := testkit.HiddenRoot(t)
	s := startServingAPISite(t, root, "in_place /objects/ /media/", "")
	for id, body := range map[string]string{
		"ark:12345/x5m": `{"target": "/media/m.txt"}`,
		"ark:12345/x5r": `{"target": "/media/r.txt", "status": 302}`,
	} {
		if got := s.Call("PUT", "/id/"+id, "x5", body); got.Status != http.StatusCreated {
			t.Fatalf("PUT %s: %d %s", id, got.Status, got.Body)
		}
	}
	var res api.RetargetResult
	if got := apiRetarget(s, "x5", api.RetargetRequest{From: "/media/", To: "/objects/"}, &res); got.Status != http.StatusOK || res.Count != 2 {
		t.Fatalf("retarget: %d %s", got.Status, got.Body)
	}
	undoPath := fmt.Sprintf("/batches/%d/undo", res.Batch)

	if err := s.Load(servingAPISiteBody(s, root, "in_place /objects/", "")); err != nil {
		t.Fatal(err)
	}
	got := s.Call("POST", undoPath, "x5", "")
	if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, "ark:12345/x5m") || !strings.Contains(got.Body, "in_place /objects/") || !strings.Contains(got.Body, "nothing was undone") {
		t.Errorf("undo onto a target in_place no longer covers: %d %s; want 400 naming ark:12345/x5m", got.Status, got.Body)
	}
	for id, want := range map[string]string{"ark:12345/x5m": "/objects/m.txt", "ark:12345/x5r": "/objects/r.txt"} {
		if b := s.Lookup(id).Binding; b.Target != want || b.Version != 2 {
			t.Errorf("%s after the refused undo: %q version %d, want %q version 2", id, b.Target, b.Version, want)
		}
	}
	if got := s.Get("/ark:12345/x5m"); got.Body == "media m\n" {
		t.Error("the refused undo serves /media/m.txt in place")
	}
	// caddy ark undo and retarget are refused alike, saying why.
	t.Setenv("ARK_API_KEY", "x5-secret")
	_, errOut, status := caddytest.RunCaddy(t, "", "ark", "undo", "--api", s.Base+"/api/ark", fmt.Sprint(res.Batch))
	if status == 0 || !strings.Contains(errOut, "ark:12345/x5m") || !strings.Contains(errOut, "nothing was undone") {
		t.Errorf("caddy ark undo: status %d, %s", status, errOut)
	}
	_, errOut, status = caddytest.RunCaddy(t, "", "ark", "retarget", "--api", s.Base+"/api/ark", "--from", "/objects/", "--to", "/x/../", "--dry-run")
	if status == 0 || !strings.Contains(errOut, "ark:12345/x5m") || !strings.Contains(errOut, "served in place may not have") {
		t.Errorf("caddy ark retarget to /x/../: status %d, %s", status, errOut)
	}

	if err := s.Load(servingAPISiteBody(s, root, "in_place /objects/ /media/", "")); err != nil {
		t.Fatal(err)
	}
	if undo := apiUndoAs(s, "x5", undoPath); undo.Restored != 2 || len(undo.Skipped) != 0 {
		t.Errorf("undo once in_place covers /media/ again: %+v", undo)
	}
	if got := s.Get("/ark:12345/x5m"); got.Status != http.StatusOK || got.Body != "media m\n" {
		t.Errorf("after the undo: %d %q", got.Status, got.Body)
	}
}

// A retarget binds only what PUT would: a new in-place target outside
// in_place, or naming a hidden file in any spelling, is a 400 naming the
// identifier, and nothing changes; a retarget keeps each binding's
// status, and never reaches what a table assigns.
func TestAPIRetargetBindsOnlyWhatPUTWould(t *testing.T) {
	s := startServingAPISite(t, testkit.HiddenRoot(t), "in_place /objects/ /media/", "")
	for id, body := range map[string]string{
		"ark:12345/x5a": `{"target": "/objects/a.txt"}`,
		"ark:12345/x5t": `{"target": "https://old.example.org/t", "status": 307}`,
	} {
		if got := s.Call("PUT", "/id/"+id, "x5", body); got.Status != http.StatusCreated {
			t.Fatalf("PUT %s: %d %s", id, got.Status, got.Body)
		}
	}
	const hidden = "served in place may not have a path segment starting with"
	for _, tt := range []struct{ from, to, reason string }{
		{"/objects/", "/secret/", "in_place /objects/ /media/"},
		{"/objects/a.txt", "/.git/config", hidden},
		{"/objects/a.txt", "/x/../.env", hidden},
		{"/objects/", "/objects/../", hidden},
		{"/objects/", "/objects/%2E%2E%2F", hidden},
		{"/objects/a.txt", "/media/%2Eenv", hidden},
		{"/objects/a.txt", "/media/..%5C.env", hidden},
	} {
		got := apiRetarget(s, "x5", api.RetargetRequest{From: tt.from, To: tt.to}, nil)
		if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, "ark:12345/x5a:") || !strings.Contains(got.Body, tt.reason) {
			t.Errorf("retarget %s to %s: %d %s; want 400 naming ark:12345/x5a, saying %q", tt.from, tt.to, got.Status, got.Body, tt.reason)
		}
	}
	if b := s.Lookup("ark:12345/x5a").Binding; b.Version != 1 {
		t.Errorf("a refused retarget changed ark:12345/x5a: %+v", b)
	}
	if got := s.Get("/ark:12345/x5a"); got.Status != http.StatusOK || got.Body != "object a\n" {
		t.Errorf("ark:12345/x5a after the refused retargets: %d %q", got.Status, got.Body)
	}

	var res api.RetargetResult
	if got := apiRetarget(s, "editor", api.RetargetRequest{From: "https://old.example.org/", To: "https://new.example.org/"}, &res); got.Status != http.StatusOK || res.Count != 1 {
		t.Fatalf("retarget: %d %s", got.Status, got.Body)
	}
	if got := s.Get("/ark:12345/x5t"); got.Status != http.StatusTemporaryRedirect || got.Location != "https://new.example.org/t" {
		t.Errorf("ark:12345/x5t after the retarget: %d %q, want 307 to the new target", got.Status, got.Location)
	}
	var pre api.RetargetPreview
	if got := apiRetarget(s, "editor", api.RetargetRequest{From: "https://table.example.org/", To: "/objects/", DryRun: true}, &pre); got.Status != http.StatusOK || pre.Count != 0 {
		t.Errorf("a retarget of the table's target: %d %s; want nothing to change", got.Status, got.Body)
	}
	s.ExpectRedirects(map[string]string{"/ark:12345/t1": "https://table.example.org/t1"})
}

// A key scoped to a shoulder retargets only under it, whatever prefix it
// gives, and undoes a batch only while it may write every identifier of
// it: not another key's batch reaching outside its shoulder, and not its
// own once its scope no longer covers it.
func TestAPIRetargetAndUndoKeepToTheKeysScope(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	for _, id := range []string{"ark:12345/b1", "ark:12345/x5a", "ark:12345/x6a", "urn:isbn:9780000000001"} {
		if got := s.Call("PUT", "/id/"+id, "editor", `{"target": "https://old.example.org/`+id+`"}`); got.Status != http.StatusCreated {
			t.Fatalf("PUT %s: %d %s", id, got.Status, got.Body)
		}
	}
	for _, prefix := range []string{"ark:12345/b", "urn:isbn:"} {
		var res api.RetargetResult
		got := apiRetarget(s, "x5", api.RetargetRequest{From: "https://old.example.org/", To: "https://new.example.org/", Prefix: prefix}, &res)
		if got.Status != http.StatusOK || res.Count != 0 {
			t.Errorf("x5 retargets under %s: %d %s; want nothing changed", prefix, got.Status, got.Body)
		}
	}
	var mine api.RetargetResult
	if got := apiRetarget(s, "x5", api.RetargetRequest{From: "https://old.example.org/", To: "https://new.example.org/", Prefix: "ark:/12345/x"}, &mine); got.Status != http.StatusOK || mine.Count != 1 {
		t.Fatalf("x5 retargets under ark:/12345/x: %d %s; want its one identifier changed", got.Status, got.Body)
	}
	for id, want := range map[string]string{
		"ark:12345/x5a":          "https://new.example.org/ark:12345/x5a",
		"ark:12345/b1":           "https://old.example.org/ark:12345/b1",
		"ark:12345/x6a":          "https://old.example.org/ark:12345/x6a",
		"urn:isbn:9780000000001": "https://old.example.org/urn:isbn:9780000000001",
	} {
		if b := s.Lookup(id).Binding; b.Target != want {
			t.Errorf("%s after x5's retarget: %q, want %q", id, b.Target, want)
		}
	}

	var theirs api.RetargetResult
	if got := apiRetarget(s, "editor", api.RetargetRequest{From: "https://", To: "https://moved.example.org/"}, &theirs); got.Status != http.StatusOK || theirs.Count != 4 {
		t.Fatalf("the editor's retarget: %d %s", got.Status, got.Body)
	}
	if got := s.Call("POST", fmt.Sprintf("/batches/%d/undo", theirs.Batch), "x5", ""); got.Status != http.StatusForbidden || !strings.Contains(got.Body, "nothing was undone") {
		t.Errorf("x5 undoes the editor's batch: %d %s; want 403", got.Status, got.Body)
	}
	if b := s.Lookup("ark:12345/b1").Binding; b.Version != 2 {
		t.Errorf("ark:12345/b1 after the refused undo: %+v", b)
	}
	if undo := apiUndo(s, fmt.Sprintf("/batches/%d/undo", theirs.Batch)); undo.Restored != 4 {
		t.Fatalf("the editor's undo: %+v", undo)
	}

	body := strings.Replace(caddytest.APISiteBody(s.DB, s.Table, ""), " write:ark:12345/x5", " write:ark:12345/y7", 1)
	if err := s.Load(body); err != nil {
		t.Fatal(err)
	}
	if got := s.Call("POST", fmt.Sprintf("/batches/%d/undo", mine.Batch), "x5", ""); got.Status != http.StatusForbidden || !strings.Contains(got.Body, "ark:12345/x5a") {
		t.Errorf("x5 undoes its own batch once scoped to y7: %d %s; want 403", got.Status, got.Body)
	}
	if b := s.Lookup("ark:12345/x5a").Binding; b.Target != "https://new.example.org/ark:12345/x5a" {
		t.Errorf("ark:12345/x5a after the refused undo: %q", b.Target)
	}
}

// An undo gives back only identifiers PUT would write now: once the site
// no longer has the NAAN of an identifier a batch changed, undoing the
// batch is refused as PUT is, and changes nothing.
func TestAPIUndoKeepsToTheSitesIdentifiers(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	wide := strings.Replace(caddytest.APISiteBody(s.DB, s.Table, ""), "naan 12345", "naan 12345 23456", 1)
	wide = strings.Replace(wide, " write:urn:isbn", " write:urn:isbn write:ark:23456", 1)
	if err := s.Load(wide); err != nil {
		t.Fatal(err)
	}
	if got := s.Call("PUT", "/id/ark:23456/a", "editor", `{"target": "https://old.example.org/a"}`); got.Status != http.StatusCreated {
		t.Fatalf("PUT: %d %s", got.Status, got.Body)
	}
	var res api.RetargetResult
	if got := apiRetarget(s, "editor", api.RetargetRequest{From: "https://old.example.org/", To: "https://new.example.org/"}, &res); got.Status != http.StatusOK || res.Count != 1 {
		t.Fatalf("retarget: %d %s", got.Status, got.Body)
	}
	if err := s.Load(strings.Replace(wide, "naan 12345 23456", "naan 12345", 1)); err != nil {
		t.Fatal(err)
	}
	got := s.Call("POST", fmt.Sprintf("/batches/%d/undo", res.Batch), "editor", "")
	if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, "NAAN 23456 is not this site's") || !strings.Contains(got.Body, "nothing was undone") {
		t.Errorf("undo of an identifier of a NAAN the site no longer has: %d %s; want 400 as PUT answers", got.Status, got.Body)
	}
	if err := s.Load(wide); err != nil {
		t.Fatal(err)
	}
	if b := s.Lookup("ark:23456/a").Binding; b.Target != "https://new.example.org/a" || b.Version != 2 {
		t.Errorf("ark:23456/a after the refused undo: %q version %d", b.Target, b.Version)
	}
}
