package tables

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
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
	s := caddytest.StartAPISite(t, "minter ark:12345/m3 seeddk")
	if got := s.Call("PUT", "/id/ark:12345/x5w", "editor", `{"target": "https://old.example.org/w"}`); got.Status != 201 {
		t.Fatalf("bind: %d %s", got.Status, got.Body)
	}
	if got := s.Call("POST", "/withdraw/ark:12345/x5w", "editor", `{"reason": "retracted"}`); got.Status/100 != 2 {
		t.Fatalf("withdraw: %d %s", got.Status, got.Body)
	}
	if got := s.Call("PUT", "/id/ark:12345/x5b", "editor", `{"target": "https://store.example.org/b"}`); got.Status != 201 {
		t.Fatalf("bind: %d %s", got.Status, got.Body)
	}
	minted := s.Call("POST", "/mint/ark:12345/m3", "editor", "")
	if minted.Status != 201 {
		t.Fatalf("mint: %d %s", minted.Status, minted.Body)
	}
	name := strings.Split(minted.Body, `"`)[3] // {"ids":["ark:12345/m3…"]}

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
			err := s.Load(caddytest.APISiteBody(s.DB, file, "minter ark:12345/m3 seeddk"))
			if err == nil {
				t.Fatalf("a table assigning an identifier %s in the store loaded", tt.state)
			}
			for _, want := range []string{file + ":3: entry 1", "is " + tt.state + " in the store (version ", "by editor", "one source"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			apiExpectServing(s, name)
		})
		t.Run(what+" by a Caddyfile map", func(t *testing.T) {
			err := s.Load(caddytest.APISiteBody(s.DB, s.Table, "minter ark:12345/m3 seeddk\n\t\tmap "+tt.id+" https://new.example.org/"))
			if err == nil {
				t.Fatalf("a map assigning an identifier %s in the store loaded", tt.state)
			}
			if !strings.Contains(err.Error(), "the map at ") || !strings.Contains(err.Error(), "is "+tt.state+" in the store") {
				t.Errorf("error %q names neither the map's line nor the store", err)
			}
			apiExpectServing(s, name)
		})
	}
}

// apiExpectServing checks that the running config still answers as before
// the refused load: the withdrawal, the store's and the table's bindings.
func apiExpectServing(s *caddytest.APISite, minted string) {
	s.T.Helper()
	if got := s.Get("/ark:12345/x5w"); got.Status != 410 {
		s.T.Errorf("withdrawn ark:12345/x5w after a refused load: %d %s, want 410", got.Status, got.Location)
	}
	s.ExpectRedirects(map[string]string{
		"/ark:12345/x5b": "https://store.example.org/b",
		"/ark:12345/t1":  "https://table.example.org/t1",
	})
	if got := s.Get("/" + minted); got.Status != 404 {
		s.T.Errorf("minted %s after a refused load: %d, want 404", minted, got.Status)
	}
}

// A watched table file that starts assigning a withdrawn identifier is
// not swapped in: the running table keeps serving and the refusal is
// logged with both sides.
func TestWatchedTableMayNotReassignAWithdrawal(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ark.db")
	path := filepath.Join(t.TempDir(), "arks.json")
	testkit.ReplaceFile(t, path, caddytest.TableJSON(t, table.Entry{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}))
	s := caddytest.NewOpsSite(t)
	keys := strings.Replace(caddytest.APIKeys, "%editor", caddytest.KeyHash("editor-secret"), 1)
	keys = strings.Replace(strings.Replace(keys, "%reader", caddytest.KeyHash("reader-secret"), 1), "%x5", caddytest.KeyHash("x5-secret"), 1)
	if err := s.Load(`
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
	api := &caddytest.APISite{Site: s.Site, DB: db, Table: path}
	if got := api.Call("POST", "/withdraw/ark:12345/x5w", "editor", `{"reason": "retracted"}`); got.Status/100 != 2 {
		t.Fatalf("withdraw: %d %s", got.Status, got.Body)
	}
	testkit.ReplaceFile(t, path, caddytest.TableJSON(t,
		table.Entry{ID: "ark:12345/t1", Target: "https://table.example.org/t2"},
		table.Entry{ID: "ark:12345/x5w", Target: "https://new.example.org/w"}))
	testkit.WaitFor(t, "the refused swap to be logged", func() bool {
		return len(caddytest.LogEntries(t, s.Log, "table not reloaded: the running table keeps serving")) > 0
	})
	logged := caddytest.LogEntries(t, s.Log, "table not reloaded: the running table keeps serving")[0]
	if e, _ := logged["error"].(string); !strings.Contains(e, path+":") || !strings.Contains(e, "withdrawn in the store") {
		t.Errorf("logged error %q names neither the file nor the store", e)
	}
	if got := s.Get("/ark:12345/x5w"); got.Status != 410 {
		t.Errorf("withdrawn after the refused swap: %d %s, want 410", got.Status, got.Location)
	}
	s.ExpectRedirects(map[string]string{"/ark:12345/t1": "https://table.example.org/t1"})
}

// The API is the other side of the rule: no write through it, whatever
// the path, reaches an identifier a table assigns.
func TestAPIMayNotWriteWhatATableAssigns(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	for _, tt := range []struct{ method, path, body string }{
		{"PUT", "/id/ark:12345/t1", `{"target": "/x"}`},
		{"PATCH", "/id/ark:/12345/t-1", `{"target": "/x"}`},
		{"POST", "/withdraw/ark:12345/t1", `{"reason": "hidden"}`},
		{"POST", "/import", `{"entries": [{"id": "ark:12345/t1", "status": 410}]}`},
	} {
		if got := s.Call(tt.method, tt.path, "editor", tt.body); got.Status != 409 || !strings.Contains(got.Body, "assigned by "+s.Table) {
			t.Errorf("%s %s: %d %s, want 409 naming the table", tt.method, tt.path, got.Status, got.Body)
		}
	}
	got := s.Call("POST", "/bulk", "editor", `{"op": "withdraw", "id": "ark:12345/t1", "reason": "hidden"}`+"\n")
	if !strings.Contains(got.Body, `"status":409`) || !strings.Contains(got.Body, "assigned by") {
		t.Errorf("bulk withdraw of a table's identifier: %d %s", got.Status, got.Body)
	}
	s.ExpectRedirects(map[string]string{"/ark:12345/t1": "https://table.example.org/t1"})
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
		_, _, err := caddytest.RunArkCommand(t, "", append(append([]string{"check"}, args...), tablePath)...)
		if err == nil || !strings.Contains(err.Error(), tablePath+":3: entry 1: ark:12345/x5w is withdrawn in the store (version 1, by editor") {
			t.Errorf("%s: check of a table reassigning a withdrawal: %v", name, err)
		}
		out, _, err := caddytest.RunArkCommand(t, "", append(append([]string{"check"}, args...), clean)...)
		if err != nil || !strings.Contains(out, "no identifier of the tables is held by the store") {
			t.Errorf("%s: check of a clean table: %v\n%s", name, err, out)
		}
	}

	s := caddytest.StartAPISite(t, "")
	if got := s.Call("POST", "/withdraw/ark:12345/x5w", "editor", `{"reason": "retracted"}`); got.Status/100 != 2 {
		t.Fatalf("withdraw: %d %s", got.Status, got.Body)
	}
	t.Setenv("ARK_API_KEY", "editor-secret")
	_, _, err := caddytest.RunArkCommand(t, "", "check", "--api", s.Base+"/api/ark", tablePath)
	if err == nil || !strings.Contains(err.Error(), tablePath+":3: entry 1: ark:12345/x5w is withdrawn in the store: ") {
		t.Errorf("--api: check of a table reassigning a withdrawal: %v", err)
	}
	if _, _, err := caddytest.RunArkCommand(t, "", "check", "--api", s.Base+"/api/ark", "--store", db, tablePath); err == nil {
		t.Error("--api with --store: no error")
	}
}
