package targets

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddy-ark/caddy-ark/table"
)

// loopbackOnlySite is the site block of an APISite that checks its
// targets and has an area open to loopback clients only, /admin/*,
// proxied to admin.
func loopbackOnlySite(db, tablePath, admin string) string {
	return `
	route /admin/* {
		@outside not remote_ip 127.0.0.0/8 ::1
		respond @outside "loopback only" 403
		reverse_proxy ` + strings.TrimPrefix(admin, "http://") + `
	}` + caddytest.APISiteBody(db, tablePath, `targets_check {
			interval 1s
			host_interval 10ms
			timeout 2s
			failures 2
			allow_private
		}`)
}

// The name the checker gives the site for its in-place checks,
// site.internal.invalid, is no way into the site (issue 28, hole 1): a
// target naming it, bound before it was refused, and a redirect to it
// from an outside origin are not asked of the site, an in-place target
// is asked as from elsewhere, so that the site's loopback-only area never
// sees the checker, and ?info does not tell that area's status.
func TestTargetsCheckDoesNotReachInsideTheSite(t *testing.T) {
	admin := startTargetOrigin(t, func(http.ResponseWriter, *http.Request) {})
	outside := startTargetOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://site.internal.invalid/admin/t13", http.StatusFound)
	})
	db := filepath.Join(t.TempDir(), "ark.db")
	// A store written before such targets were refused.
	st := testkit.Provision(t, &bolt.Store{Path: db})
	bound := "http://site.internal.invalid/admin/t12"
	if _, err := st.Apply(context.Background(), store.Write{Binding: store.Binding{Key: "ark:12345/x5in", Target: bound, Status: 302, Passthrough: true}}); err != nil {
		t.Fatal(err)
	}
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/x5out", Target: outside.URL + "/moved"}})
	s := &caddytest.APISite{DB: db, Table: tablePath}
	s.Site = caddytest.StartSite(t, loopbackOnlySite(db, tablePath, admin.URL))
	if got := s.Get("/admin/t13"); got.Status != http.StatusOK {
		t.Fatalf("the loopback-only area answers a loopback client %d, want 200", got.Status)
	}
	before := admin.hitsOf("/admin/t12") + admin.hitsOf("/admin/t13") + admin.hitsOf("/admin/t14")
	// A key may serve a path in place; its check asks as a client from
	// elsewhere would, not as the server itself.
	if got := s.Call("PUT", "/id/ark:12345/x5here", "editor", `{"target": "/admin/t14"}`); got.Status != http.StatusCreated {
		t.Fatalf("PUT an in-place target: %d %s", got.Status, got.Body)
	}

	tc := checksIn(t, db)
	if c := waitCheck(t, tc, bound, store.TargetBroken); c.Code != "dns" || strings.Contains(c.Final, "/admin") {
		t.Errorf("a bound target naming the site's internal host: %+v, want broken by dns", c)
	}
	if c := waitCheck(t, tc, outside.URL+"/moved", store.TargetBroken); c.Code != "bad redirect" || strings.Contains(c.Final, "/admin") {
		t.Errorf("a redirect from an outside origin into the site: %+v, want broken by a bad redirect", c)
	}
	if c := waitCheck(t, tc, "/admin/t14", store.TargetUnverifiable); c.Code != "403" {
		t.Errorf("an in-place target in the loopback-only area: %+v, want unverifiable by its 403", c)
	}
	if n := admin.hitsOf("/admin/t12") + admin.hitsOf("/admin/t13") + admin.hitsOf("/admin/t14") - before; n != 0 {
		t.Errorf("the checker reached the loopback-only area %d times", n)
	}
	for id, state := range map[string]string{"ark:12345/x5in": "broken", "ark:12345/x5out": "broken", "ark:12345/x5here": "unverifiable"} {
		got := s.Get("/" + id + "?info")
		if got.Status != http.StatusOK || !strings.Contains(got.Body, "target-state: "+state) {
			t.Errorf("%s?info: %d %s, want the broken check", id, got.Status, got.Body)
		}
		if strings.Contains(got.Body, "target-code: 200") || strings.Contains(got.Body, "target-final: /admin") {
			t.Errorf("%s?info tells the loopback-only area's answer:\n%s", id, got.Body)
		}
	}
}

// No write binds a target naming the checker's name for the site, in any
// spelling: not PUT, PATCH, bulk, mint-and-bind, import or retarget.
func TestAPIRefusesTheSiteInternalHost(t *testing.T) {
	s := caddytest.StartAPISite(t, "minter ark:12345/x5 .reeddeedk")
	const reason = "the target checker's name for the site itself"
	for i, target := range []string{
		"http://site.internal.invalid/admin",
		"https://SITE.Internal.INVALID/admin",
		"http://site.internal.invalid./admin",
		"http://site.internal.invalid:8080/admin",
		"http://user@site.internal.invalid",
	} {
		id := "ark:12345/x5h" + string(rune('a'+i))
		if got := s.Call("PUT", "/id/"+id, "editor", `{"target": "`+target+`"}`); got.Status != http.StatusBadRequest || !strings.Contains(got.Body, reason) {
			t.Errorf("PUT %s: %d %s", target, got.Status, got.Body)
		}
	}
	const internal = "http://site.internal.invalid/admin"
	got := s.Call("PATCH", "/id/ark:12345/x5p1", "editor", `{"target": "`+internal+`"}`, "Content-Type", "application/merge-patch+json")
	if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, reason) {
		t.Errorf("PATCH: %d %s", got.Status, got.Body)
	}
	got = s.Call("POST", "/bulk", "editor", `{"op": "bind", "id": "ark:12345/x5b1", "target": "`+internal+`"}`+"\n")
	if !strings.Contains(got.Body, `"status":400`) || !strings.Contains(got.Body, reason) {
		t.Errorf("bulk: %d %s", got.Status, got.Body)
	}
	got = s.Call("POST", "/mint/ark:12345/x5", "editor", `{"target": "`+internal+`/{id}"}`)
	if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, reason) {
		t.Errorf("mint-and-bind: %d %s", got.Status, got.Body)
	}
	got = s.Call("POST", "/import", "editor", `{"entries": [{"id": "ark:12345/x5i1", "target": "`+internal+`"}]}`)
	if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, reason) {
		t.Errorf("import: %d %s", got.Status, got.Body)
	}
	if got := s.Call("PUT", "/id/ark:12345/x5r1", "editor", `{"target": "https://old.example.org/r1"}`); got.Status != http.StatusCreated {
		t.Fatalf("PUT: %d %s", got.Status, got.Body)
	}
	got = s.Call("POST", "/retarget", "editor", `{"from": "https://old.example.org/", "to": "http://site.internal.invalid/"}`)
	if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, reason) {
		t.Errorf("retarget: %d %s", got.Status, got.Body)
	}
	for _, id := range []string{"ark:12345/x5ha", "ark:12345/x5p1", "ark:12345/x5b1", "ark:12345/x5i1"} {
		s.ExpectUnbound(id)
	}
	if r := s.Lookup("ark:12345/x5r1"); r == nil || r.Binding.Target != "https://old.example.org/r1" {
		t.Errorf("a refused retarget changed ark:12345/x5r1: %+v", r)
	}
}
