package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// The API binds no target that holds a raw bidi or invisible character,
// by any of its ways of writing one: 400 with a one-line reason that
// names the character and its percent-encoding, and nothing written
// (issue 28, item 4). The same target percent-encoded is bound.
func TestAPIRefusesInvisibleCharactersInTargets(t *testing.T) {
	s := caddytest.StartAPISite(t, "minter ark:12345/x5 .reeddeedk")
	refused := func(what string, got caddytest.Answer) {
		t.Helper()
		var e struct{ Error string }
		_ = json.Unmarshal([]byte(got.Body), &e)
		if got.Status != http.StatusBadRequest || !strings.Contains(e.Error, "U+202E") || !strings.Contains(e.Error, "%E2%80%AE") || strings.Contains(e.Error, "\n") {
			t.Errorf("%s: %d %s, want 400 naming U+202E and %%E2%%80%%AE on one line", what, got.Status, got.Body)
		}
	}
	for _, c := range []rune{'\u202E', '\u200B', '\u2066', 0x85, '\uFEFF', '\u2028'} {
		body := fmt.Sprintf(`{"target": "https://repo.example.org/%cgpj.exe"}`, c)
		if got := s.Call("PUT", "/id/ark:12345/x5raw", "editor", body); got.Status != http.StatusBadRequest || !strings.Contains(got.Body, fmt.Sprintf("U+%04X", c)) {
			t.Errorf("PUT with U+%04X in the target: %d %s", c, got.Status, got.Body)
		}
	}
	raw, _ := json.Marshal(api.BindRequest{Target: testkit.RawBidiTarget})
	refused("PUT", s.Call("PUT", "/id/ark:12345/x5raw", "editor", string(raw)))
	s.ExpectUnbound("ark:12345/x5raw")

	encoded := `{"target": "https://repo.example.org/%E2%80%AEgpj.exe"}`
	if got := s.Call("PUT", "/id/ark:12345/x5ok", "editor", encoded); got.Status != http.StatusCreated {
		t.Fatalf("PUT with the target percent-encoded: %d %s", got.Status, got.Body)
	}
	refused("PATCH", s.Call("PATCH", "/id/ark:12345/x5ok", "editor", string(raw), "Content-Type", "application/merge-patch+json"))
	if b := s.Lookup("ark:12345/x5ok").Binding; b.Target != "https://repo.example.org/%E2%80%AEgpj.exe" || b.Version != 1 {
		t.Errorf("after the refused PATCH: %+v", b)
	}

	bulk := caddytest.BulkResults(t, s.Call("POST", "/bulk", "editor", `{"op": "bind", "id": "ark:12345/x5bulk", "target": "`+testkit.RawBidiTarget+`"}`))
	if len(bulk) != 1 || bulk[0].Status != http.StatusBadRequest || !strings.Contains(bulk[0].Error, "U+202E") {
		t.Errorf("bulk: %+v", bulk)
	}
	s.ExpectUnbound("ark:12345/x5bulk")

	refused("mint with a target", s.Call("POST", "/mint/ark:12345/x5", "editor", string(raw)))
	if got := s.Call("POST", "/mint/ark:12345/x5", "editor", ""); got.Status != http.StatusCreated || !strings.Contains(got.Body, `"ark:12345/x5`) {
		t.Errorf("the refused mint took names or counted: %d %s", got.Status, got.Body)
	}

	imp, _ := json.Marshal(map[string]any{"entries": []table.Entry{{ID: "ark:12345/x5imp1", Target: "https://repo.example.org/ok"}, {ID: "ark:12345/x5imp2", Target: testkit.RawBidiTarget}}})
	refused("import", s.Call("POST", "/import", "editor", string(imp)))
	s.ExpectUnbound("ark:12345/x5imp1")

	rt, _ := json.Marshal(api.RetargetRequest{From: "https://repo.example.org/", To: "https://repo.example.org/\u202E"})
	refused("retarget", s.Call("POST", "/retarget", "editor", string(rt)))
	if b := s.Lookup("ark:12345/x5ok").Binding; b.Version != 1 {
		t.Errorf("after the refused retarget: %+v", b)
	}
}

// A target stored raw before the API refused them (here written to the
// store directly, as an older version did) can be mended by a retarget,
// but undoing that retarget, which would bind it raw again, is refused.
func TestAPIUndoRefusesToRestoreAnInvisibleCharacter(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ark.db")
	caddytest.StoreAsBefore(t, db, store.Binding{Key: "ark:12345/x5old", Target: testkit.RawBidiTarget, Status: http.StatusFound})
	s := &caddytest.APISite{DB: db, Table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})}
	s.Site = caddytest.StartSite(t, caddytest.APISiteBody(s.DB, s.Table, ""))

	var res api.RetargetResult
	mend := api.RetargetRequest{From: testkit.RawBidiTarget, To: "https://repo.example.org/%E2%80%AEgpj.exe"}
	if got := apiRetarget(s, "editor", mend, &res); got.Status != http.StatusOK || res.Count != 1 {
		t.Fatalf("retarget mending the raw target: %d %s", got.Status, got.Body)
	}
	got := s.Call("POST", fmt.Sprintf("/batches/%d/undo", res.Batch), "editor", "")
	if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, "ark:12345/x5old") || !strings.Contains(got.Body, "U+202E") {
		t.Errorf("undo: %d %s, want 400 naming the identifier and U+202E", got.Status, got.Body)
	}
	if b := s.Lookup("ark:12345/x5old").Binding; b.Target != "https://repo.example.org/%E2%80%AEgpj.exe" {
		t.Errorf("after the refused undo: %q", b.Target)
	}
}
