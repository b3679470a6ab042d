package localcopy

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// TestLocalCopyOnBolt: local_copy works the same on a bbolt store. What
// the API binds, withdraws, mints (and does not bind) and retargets is
// answered at once,
// cached answers included; the copy's files are in the directory, and
// the metrics count what it applied and its sequence number. A config
// reload keeps the copy serving and following.
func TestLocalCopyOnBolt(t *testing.T) {
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	copyDir := filepath.Join(t.TempDir(), "copy")
	body := strings.Replace(siteBody("store bolt "+filepath.Join(t.TempDir(), "ark.db"), tablePath, copyDir), "ready /ready", "ready /ready\n\t\tminter ark:12345/x8 .sdd", 1)
	s := caddytest.StartOpsSite(t, body)
	api := &caddytest.APISite{Site: s.Site, Table: tablePath}

	ids := []string{"ark:12345/x5lc1", "ark:12345/x5lc2", "ark:12345/x5lc3"}
	for i, id := range ids {
		if got := api.Get("/" + id); got.Status != http.StatusNotFound {
			t.Fatalf("%s before binding: %d", id, got.Status) // and cached so
		}
		target := "https://repo.example.org/" + string(rune('a'+i))
		if got := api.Call("PUT", "/id/"+id, "editor", `{"target": "`+target+`"}`); got.Status != http.StatusCreated {
			t.Fatalf("bind %s: %d %s", id, got.Status, got.Body)
		}
		if got := api.Get("/" + id); got.Status != http.StatusFound || got.Location != target {
			t.Errorf("%s just bound: %d %q, want 302 %s", id, got.Status, got.Location, target)
		}
	}
	if got := api.Call("POST", "/withdraw/"+ids[0], "editor", `{"reason": "a duplicate"}`); got.Status != http.StatusOK {
		t.Fatalf("withdraw: %d %s", got.Status, got.Body)
	}
	if got := api.Get("/" + ids[0]); got.Status != http.StatusGone {
		t.Errorf("%s just withdrawn: %d %q", ids[0], got.Status, got.Location)
	}
	if got := api.Call("PATCH", "/id/"+ids[1], "editor", `{"passthrough": true}`, "Content-Type", "application/merge-patch+json"); got.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", got.Status, got.Body)
	}
	if got := api.Get("/" + ids[1] + "/c1"); got.Status != http.StatusFound || got.Location != "https://repo.example.org/b/c1" {
		t.Errorf("%s/c1 under a passthrough just made: %d %q", ids[1], got.Status, got.Location)
	}
	for _, name := range []string{"bindings.base", "bindings.journal"} {
		if _, err := os.Stat(filepath.Join(copyDir, name)); err != nil {
			t.Errorf("the copy's %s: %v", name, err)
		}
	}
	testkit.WaitFor(t, "the copy to have read the history", func() bool {
		m := s.Metrics()
		return m["caddy_ark_copy_seq"] >= 5 && m["caddy_ark_copy_changes_applied_total"] >= 5
	})

	// A name minted and not bound is answered so, from the copy (which
	// serves now), not as unknown, and so from the cache.
	minted := caddytest.Minted(t, api.Call("POST", "/mint/ark:12345/x8?n=1", "editor", ""))
	if len(minted) != 1 {
		t.Fatalf("mint: %v", minted)
	}
	for range 2 {
		if got := api.Get("/" + minted[0]); got.Status != http.StatusNotFound || !strings.Contains(got.Body, "minted but not bound") {
			t.Errorf("%s minted, not bound: %d %q", minted[0], got.Status, got.Body)
		}
	}

	// A config reload keeps the copy: the new handler reads and writes
	// through it.
	if err := s.Load(strings.Replace(body, "ready /ready", "ready /ready\n\t\tcache_size 500", 1)); err != nil {
		t.Fatal(err)
	}
	if got := api.Call("PUT", "/id/ark:12345/x5lc4", "editor", `{"target": "https://repo.example.org/d"}`); got.Status != http.StatusCreated {
		t.Fatalf("bind after the reload: %d %s", got.Status, got.Body)
	}
	if got := api.Get("/ark:12345/x5lc4"); got.Status != http.StatusFound || got.Location != "https://repo.example.org/d" {
		t.Errorf("bound after the reload: %d %q", got.Status, got.Location)
	}
	testkit.WaitFor(t, "the copy to serve after the reload, and to follow", func() bool {
		got := api.Get("/ready")
		return got.Status == http.StatusOK && strings.Contains(got.Body, `"state":"serving"`) && s.Metrics()["caddy_ark_copy_seq"] >= 6
	})

	// Without caches every answer is the copy's, made in the answer's own
	// room: each is as the store has it, asked twice (a room reused
	// would show the first answer's binding in the second).
	if err := s.Load(strings.Replace(body, "ready /ready", "ready /ready\n\t\tcache_size off", 1)); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		for path, want := range map[string]struct {
			status   int
			location string
		}{
			"/" + ids[0]:           {http.StatusGone, ""},
			"/" + ids[1] + "/c1":   {http.StatusFound, "https://repo.example.org/b/c1"},
			"/" + ids[2]:           {http.StatusFound, "https://repo.example.org/c"},
			"/ark:12345/x5lc4":     {http.StatusFound, "https://repo.example.org/d"},
			"/" + minted[0]:        {http.StatusNotFound, ""},
			"/ark:12345/x5unknown": {http.StatusNotFound, ""},
		} {
			if got := api.Get(path); got.Status != want.status || got.Location != want.location {
				t.Errorf("%s without caches: %d %q, want %d %q", path, got.Status, got.Location, want.status, want.location)
			}
		}
	}

	// One source: a table that assigns what the store withdrew or minted
	// is refused at load, checked against the store through the copy's
	// site, and the running config keeps answering.
	reassigning := testkit.WriteTable(t, []table.Entry{
		{ID: "ark:12345/t1", Target: "https://table.example.org/t1"},
		{ID: ids[0], Target: "https://table.example.org/again"},
		{ID: minted[0], Target: "https://table.example.org/minted"},
	})
	err := s.Load(strings.Replace(body, tablePath, reassigning, 1))
	for _, want := range []string{ids[0] + " is withdrawn in the store", minted[0] + " is minted in the store"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("a table assigning what the store holds: %v, want %q", err, want)
		}
	}
	if got := api.Get("/" + ids[0]); got.Status != http.StatusGone {
		t.Errorf("%s after the refused load: %d %q", ids[0], got.Status, got.Location)
	}
}

// TestLocalCopyWithoutStore: local_copy with no store is refused at
// load, saying why.
func TestLocalCopyWithoutStore(t *testing.T) {
	err := caddytest.NewOpsSite(t).Load(`
	ark {
		naan 12345
		local_copy /tmp/nowhere
	}`)
	if err == nil || !strings.Contains(err.Error(), "local_copy /tmp/nowhere: there is no store to copy") {
		t.Errorf("local_copy without a store: %v", err)
	}
}
