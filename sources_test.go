package ark

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddy-ark/caddy-ark/store/postgres"
	"github.com/caddy-ark/caddy-ark/store/storetest"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddyserver/caddy/v2"
)

// An identifier has one source. Once the API withdraws an identifier, or
// binds or mints one, no table may assign it: a config that tries is
// refused, naming the table's entry and the store's binding, and the
// running config keeps serving.
func TestTableMayNotAssignWhatTheStoreHolds(t *testing.T) {
	s := startAPISite(t, "minter ark:12345/m3 seeddk")
	if got := s.call("PUT", "/id/ark:12345/x5w", "editor", `{"target": "https://old.example.org/w"}`); got.status != 201 {
		t.Fatalf("bind: %d %s", got.status, got.body)
	}
	if got := s.call("POST", "/withdraw/ark:12345/x5w", "editor", `{"reason": "retracted"}`); got.status/100 != 2 {
		t.Fatalf("withdraw: %d %s", got.status, got.body)
	}
	if got := s.call("PUT", "/id/ark:12345/x5b", "editor", `{"target": "https://store.example.org/b"}`); got.status != 201 {
		t.Fatalf("bind: %d %s", got.status, got.body)
	}
	minted := s.call("POST", "/mint/ark:12345/m3", "editor", "")
	if minted.status != 201 {
		t.Fatalf("mint: %d %s", minted.status, minted.body)
	}
	name := strings.Split(minted.body, `"`)[3] // {"ids":["ark:12345/m3…"]}

	for what, tt := range map[string]struct {
		id, state string
	}{
		"withdrawn": {"ark:/12345/x5-w", "withdrawn"},
		"bound":     {"ark:12345/x5b", "bound"},
		"minted":    {name, "minted"},
	} {
		t.Run(what+" by a table file", func(t *testing.T) {
			file := testkit.WriteFile(t, "reassign.json", `{"entries": [
{"id": "ark:12345/t1", "target": "https://table.example.org/t1"},
{"id": "`+tt.id+`", "target": "https://new.example.org/"}
]}`)
			err := s.load(apiSiteBody(s.db, file, "minter ark:12345/m3 seeddk"))
			if err == nil {
				t.Fatalf("a table assigning an identifier %s in the store loaded", tt.state)
			}
			for _, want := range []string{file + ":3: entry 1", "is " + tt.state + " in the store (version ", "by editor", "one source"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			s.expectServing(name)
		})
		t.Run(what+" by a Caddyfile map", func(t *testing.T) {
			err := s.load(apiSiteBody(s.db, s.table, "minter ark:12345/m3 seeddk\n\t\tmap "+tt.id+" https://new.example.org/"))
			if err == nil {
				t.Fatalf("a map assigning an identifier %s in the store loaded", tt.state)
			}
			if !strings.Contains(err.Error(), "the map at ") || !strings.Contains(err.Error(), "is "+tt.state+" in the store") {
				t.Errorf("error %q names neither the map's line nor the store", err)
			}
			s.expectServing(name)
		})
	}
}

// expectServing checks that the running config still answers as before
// the refused load: the withdrawal, the store's and the table's bindings.
func (s *apiSite) expectServing(minted string) {
	s.t.Helper()
	if got := s.get("/ark:12345/x5w"); got.status != 410 {
		s.t.Errorf("withdrawn ark:12345/x5w after a refused load: %d %s, want 410", got.status, got.location)
	}
	s.expectRedirects(map[string]string{
		"/ark:12345/x5b": "https://store.example.org/b",
		"/ark:12345/t1":  "https://table.example.org/t1",
	})
	if got := s.get("/" + minted); got.status != 404 {
		s.t.Errorf("minted %s after a refused load: %d, want 404", minted, got.status)
	}
}

// A watched table file that starts assigning a withdrawn identifier is
// not swapped in: the running table keeps serving and the refusal is
// logged with both sides.
func TestWatchedTableMayNotReassignAWithdrawal(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ark.db")
	path := filepath.Join(t.TempDir(), "arks.json")
	replaceFile(t, path, tableJSON(t, table.Entry{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}))
	s := newOpsSite(t)
	keys := strings.Replace(apiKeys, "%editor", keyHash("editor-secret"), 1)
	keys = strings.Replace(strings.Replace(keys, "%reader", keyHash("reader-secret"), 1), "%x5", keyHash("x5-secret"), 1)
	if err := s.load(`
	ark {
		naan 12345
		table ` + path + `
		watch 100ms
		store bolt ` + db + `
		api /api/ark {` + keys + `
		}
	}
	respond "not the API" 418`); err != nil {
		t.Fatal(err)
	}
	api := &apiSite{site: s.site, db: db, table: path}
	if got := api.call("POST", "/withdraw/ark:12345/x5w", "editor", `{"reason": "retracted"}`); got.status/100 != 2 {
		t.Fatalf("withdraw: %d %s", got.status, got.body)
	}
	replaceFile(t, path, tableJSON(t,
		table.Entry{ID: "ark:12345/t1", Target: "https://table.example.org/t2"},
		table.Entry{ID: "ark:12345/x5w", Target: "https://new.example.org/w"}))
	testkit.WaitFor(t, "the refused swap to be logged", func() bool {
		return len(logEntries(t, s.log, "table not reloaded: the running table keeps serving")) > 0
	})
	logged := logEntries(t, s.log, "table not reloaded: the running table keeps serving")[0]
	if e, _ := logged["error"].(string); !strings.Contains(e, path+":") || !strings.Contains(e, "withdrawn in the store") {
		t.Errorf("logged error %q names neither the file nor the store", e)
	}
	if got := s.get("/ark:12345/x5w"); got.status != 410 {
		t.Errorf("withdrawn after the refused swap: %d %s, want 410", got.status, got.location)
	}
	s.expectRedirects(map[string]string{"/ark:12345/t1": "https://table.example.org/t1"})
}

// The API is the other side of the rule: no write through it, whatever
// the path, reaches an identifier a table assigns.
func TestAPIMayNotWriteWhatATableAssigns(t *testing.T) {
	s := startAPISite(t, "")
	for _, tt := range []struct{ method, path, body string }{
		{"PUT", "/id/ark:12345/t1", `{"target": "/x"}`},
		{"PATCH", "/id/ark:/12345/t-1", `{"target": "/x"}`},
		{"POST", "/withdraw/ark:12345/t1", `{"reason": "hidden"}`},
		{"POST", "/import", `{"entries": [{"id": "ark:12345/t1", "status": 410}]}`},
	} {
		if got := s.call(tt.method, tt.path, "editor", tt.body); got.status != 409 || !strings.Contains(got.body, "assigned by "+s.table) {
			t.Errorf("%s %s: %d %s, want 409 naming the table", tt.method, tt.path, got.status, got.body)
		}
	}
	got := s.call("POST", "/bulk", "editor", `{"op": "withdraw", "id": "ark:12345/t1", "reason": "hidden"}`+"\n")
	if !strings.Contains(got.body, `"status":409`) || !strings.Contains(got.body, "assigned by") {
		t.Errorf("bulk withdraw of a table's identifier: %d %s", got.status, got.body)
	}
	s.expectRedirects(map[string]string{"/ark:12345/t1": "https://table.example.org/t1"})
}

// caddy ark check --store and --api find what a load would refuse, in a
// bolt file, a PostgreSQL store and a running server, reading only.
func TestCheckTablesAgainstAStore(t *testing.T) {
	withdrawn := store.Write{Binding: store.Binding{Key: "ark:12345/x5w", Status: 410, Reason: "retracted"}, By: "editor"}
	tablePath := testkit.WriteFile(t, "t.json", `{"entries": [
{"id": "ark:12345/t1", "target": "/t1"},
{"id": "ark:/12345/x5-w", "target": "/w"}
]}`)
	clean := testkit.WriteFile(t, "clean.json", `{"entries": [{"id": "ark:12345/t1", "target": "/t1"}]}`)

	db := filepath.Join(t.TempDir(), "ark.db")
	bs := &bolt.Store{Path: db}
	if err := bs.Provision(caddy.Context{}); err != nil {
		t.Fatal(err)
	}
	storetest.MustApply(t, bs, withdrawn)
	if err := bs.Cleanup(); err != nil {
		t.Fatal(err)
	}
	dsn := testkit.SharedPostgres(t).CreateDB(t)
	storetest.MustApply(t, testkit.Provision(t, &postgres.Store{DSN: dsn}), withdrawn)

	for name, args := range map[string][]string{
		"bolt":     {"--store", db},
		"postgres": {"--store", dsn},
	} {
		_, _, err := runArkCommand(t, "", append(append([]string{"check"}, args...), tablePath)...)
		if err == nil || !strings.Contains(err.Error(), tablePath+":3: entry 1: ark:12345/x5w is withdrawn in the store (version 1, by editor") {
			t.Errorf("%s: check of a table reassigning a withdrawal: %v", name, err)
		}
		out, _, err := runArkCommand(t, "", append(append([]string{"check"}, args...), clean)...)
		if err != nil || !strings.Contains(out, "no identifier of the tables is held by the store") {
			t.Errorf("%s: check of a clean table: %v\n%s", name, err, out)
		}
	}

	s := startAPISite(t, "")
	if got := s.call("POST", "/withdraw/ark:12345/x5w", "editor", `{"reason": "retracted"}`); got.status/100 != 2 {
		t.Fatalf("withdraw: %d %s", got.status, got.body)
	}
	t.Setenv("ARK_API_KEY", "editor-secret")
	_, _, err := runArkCommand(t, "", "check", "--api", s.base+"/api/ark", tablePath)
	if err == nil || !strings.Contains(err.Error(), tablePath+":3: entry 1: ark:12345/x5w is withdrawn in the store: ") {
		t.Errorf("--api: check of a table reassigning a withdrawal: %v", err)
	}
	if _, _, err := runArkCommand(t, "", "check", "--api", s.base+"/api/ark", "--store", db, tablePath); err == nil {
		t.Error("--api with --store: no error")
	}
}
