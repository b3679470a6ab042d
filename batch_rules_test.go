package ark

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/api"
)

// An undo gives back only what PUT would bind now (issue 20's rules on
// the newer write paths): once the api block's in_place no longer covers
// an in-place target a batch replaced, undoing the batch is refused,
// naming the identifier, and changes nothing; with in_place covering it
// again, the same undo restores it.
func TestAPIUndoRestoresOnlyWhatPUTWouldBind(t *testing.T) {
	root := hiddenRoot(t)
	s := startServingAPISite(t, root, "in_place /objects/ /media/", "")
	for id, body := range map[string]string{
		"ark:12345/x5m": `{"target": "/media/m.txt"}`,
		"ark:12345/x5r": `{"target": "/media/r.txt", "status": 302}`,
	} {
		if got := s.call("PUT", "/id/"+id, "x5", body); got.status != http.StatusCreated {
			t.Fatalf("PUT %s: %d %s", id, got.status, got.body)
		}
	}
	var res api.RetargetResult
	if got := s.retarget("x5", api.RetargetRequest{From: "/media/", To: "/objects/"}, &res); got.status != http.StatusOK || res.Count != 2 {
		t.Fatalf("retarget: %d %s", got.status, got.body)
	}
	undoPath := fmt.Sprintf("/batches/%d/undo", res.Batch)

	if err := s.load(servingAPISiteBody(s, root, "in_place /objects/", "")); err != nil {
		t.Fatal(err)
	}
	got := s.call("POST", undoPath, "x5", "")
	if got.status != http.StatusBadRequest || !strings.Contains(got.body, "ark:12345/x5m") || !strings.Contains(got.body, "in_place /objects/") || !strings.Contains(got.body, "nothing was undone") {
		t.Errorf("undo onto a target in_place no longer covers: %d %s; want 400 naming ark:12345/x5m", got.status, got.body)
	}
	for id, want := range map[string]string{"ark:12345/x5m": "/objects/m.txt", "ark:12345/x5r": "/objects/r.txt"} {
		if b := s.lookup(id).Binding; b.Target != want || b.Version != 2 {
			t.Errorf("%s after the refused undo: %q version %d, want %q version 2", id, b.Target, b.Version, want)
		}
	}
	if got := s.get("/ark:12345/x5m"); got.body == "media m\n" {
		t.Error("the refused undo serves /media/m.txt in place")
	}

	if err := s.load(servingAPISiteBody(s, root, "in_place /objects/ /media/", "")); err != nil {
		t.Fatal(err)
	}
	if undo := s.undoAs("x5", undoPath); undo.Restored != 2 || len(undo.Skipped) != 0 {
		t.Errorf("undo once in_place covers /media/ again: %+v", undo)
	}
	if got := s.get("/ark:12345/x5m"); got.status != http.StatusOK || got.body != "media m\n" {
		t.Errorf("after the undo: %d %q", got.status, got.body)
	}
}
