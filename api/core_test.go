package api_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/mint"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/stats"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddy-ark/caddy-ark/table"
	"go.uber.org/zap"
)

// site is a site of NAAN 12345 as the API sees it: a real resolver, a
// bbolt store in a temporary directory, a minter under ark:12345/m.
type site struct {
	rs      *resolve.Resolver
	store   store.Store
	minters mint.Minters
}

func (s *site) Resolver() *resolve.Resolver { return s.rs }
func (s *site) Store() store.Store          { return s.store }
func (s *site) Minters() mint.Minters       { return s.minters }
func (s *site) Logger() *zap.Logger         { return zap.NewNop() }
func (s *site) Stats() *stats.Collector     { return nil }

func (s *site) Mint(ctx context.Context, shoulder string, n int, by string, bind func(key string) (store.Binding, error)) ([]string, error) {
	m := s.minters.Find(shoulder)
	if m == nil {
		return nil, mint.ErrNoMinter
	}
	return mint.Mint(ctx, m, s.store, s.rs.Table(), n, by, bind)
}

// secrets of the keys newAPI configures, by name.
var secrets = map[string]string{"editor": "editor-secret", "x5": "x5-secret"}

// newAPI returns an API whose key editor may write every identifier and
// x5 only those under ark:12345/x5, on a site whose table assigns
// ark:12345/t1.
func newAPI(t *testing.T) (*api.API, *site) {
	t.Helper()
	hash := func(name string) string {
		sum := sha256.Sum256([]byte(secrets[name]))
		return hex.EncodeToString(sum[:])
	}
	a := &api.API{Prefix: "/api/ark", Keys: []api.APIKey{
		{Name: "editor", Hash: hash("editor"), Scopes: []string{"write:*"}},
		{Name: "x5", Hash: hash("x5"), Scopes: []string{"write:ark:12345/x5"}},
	}}
	if err := a.Provision(); err != nil {
		t.Fatal(err)
	}
	tbl, err := table.Load(nil, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	if err != nil {
		t.Fatal(err)
	}
	st := testkit.Provision(t, &bolt.Store{Path: filepath.Join(t.TempDir(), "ark.db")})
	rs, err := resolve.New(resolve.Options{Table: tbl, NAANs: []string{"12345"}, Store: st, MaxLength: 1024})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rs.Close)
	ms, err := mint.Compile([]mint.Minter{{Shoulder: "ark:12345/m", Template: ".sdd"}})
	if err != nil {
		t.Fatal(err)
	}
	return a, &site{rs: rs, store: st, minters: ms}
}

// caller authenticates the key called name.
func caller(t *testing.T, a *api.API, name string) *api.Caller {
	t.Helper()
	c, err := a.Authenticate(secrets[name])
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// wantStatus fails unless err is a refusal with status.
func wantStatus(t *testing.T, what string, err error, status int) {
	t.Helper()
	if err == nil || api.ErrorStatus(err) != status {
		t.Errorf("%s: %v (status %d), want %d", what, err, api.ErrorStatus(err), status)
	}
}

// A binding's life through the Go functions: created, read with its
// history, patched on a precondition, withdrawn for a reason, and never
// changed again.
func TestBindingLife(t *testing.T) {
	a, s := newAPI(t)
	ed := caller(t, a, "editor")
	ctx := context.Background()
	b, err := a.Put(ctx, s, ed, "ark:/12345/x5b1", api.BindRequest{Target: "https://example.org/b1", Meta: map[string]string{"who": "Ada"}}, api.Conditions{})
	if err != nil || b.Version != 1 || b.Key != "ark:12345/x5b1" || b.Status != http.StatusFound || b.By != "editor" {
		t.Fatalf("Put: %+v, %v", b, err)
	}
	_, err = a.Patch(ctx, s, ed, "ark:12345/x5b1", &api.BindPatch{SetTarget: true, To: api.BindRequest{Target: "https://example.org/other"}}, api.Conditions{IfMatch: []string{`"7"`}})
	wantStatus(t, "Patch with a stale If-Match", err, http.StatusPreconditionFailed)
	_, err = a.Put(ctx, s, ed, "ark:12345/x5b1", api.BindRequest{Target: "https://example.org/b1"}, api.Conditions{IfNoneMatch: []string{"*"}})
	wantStatus(t, "Put with If-None-Match: * on a bound identifier", err, http.StatusPreconditionFailed)
	b, err = a.Patch(ctx, s, ed, "ark:12345/x5b1", &api.BindPatch{SetTarget: true, To: api.BindRequest{Target: "https://example.org/b1v2"}, SetMeta: true, Meta: map[string]*string{"who": nil}}, api.Conditions{IfMatch: []string{`"1"`}})
	if err != nil || b.Version != 2 || b.Target != "https://example.org/b1v2" || b.Meta != nil {
		t.Fatalf("Patch: %+v, %v; want version 2, the new target and no meta", b, err)
	}
	_, err = a.Withdraw(ctx, s, ed, "ark:12345/x5b1", " ", api.Conditions{})
	wantStatus(t, "Withdraw without a reason", err, http.StatusBadRequest)
	b, err = a.Withdraw(ctx, s, ed, "ark:12345/x5b1", "duplicate", api.Conditions{IfMatch: []string{`"2"`}})
	if err != nil || b.State() != store.StateWithdrawn || b.Reason != "duplicate" {
		t.Fatalf("Withdraw: %+v, %v", b, err)
	}
	_, err = a.Put(ctx, s, ed, "ark:12345/x5b1", api.BindRequest{Target: "https://example.org/again"}, api.Conditions{})
	wantStatus(t, "Put on a withdrawn identifier", err, http.StatusConflict)
	rec, err := a.Get(ctx, s, ed, "ark:12345/x5b1")
	if err != nil || len(rec.History) != 3 || rec.Binding.Version != 3 {
		t.Fatalf("Get: %+v, %v; want version 3 and three changes", rec, err)
	}
	if res := s.rs.Resolve(ctx, "ark:12345/x5b1"); res.Status != http.StatusGone {
		t.Errorf("resolution after the withdrawal: %d, want 410", res.Status)
	}
}

// What a key may do: its scopes, the site's NAANs, identifiers a table
// assigns, a withdrawal's status through Put, an identifier never
// stored.
func TestRefusals(t *testing.T) {
	a, s := newAPI(t)
	ctx := context.Background()
	x5, ed := caller(t, a, "x5"), caller(t, a, "editor")
	bind := api.BindRequest{Target: "https://example.org/"}
	_, err := a.Put(ctx, s, x5, "ark:12345/y1", bind, api.Conditions{})
	wantStatus(t, "x5 writing ark:12345/y1", err, http.StatusForbidden)
	_, err = a.Get(ctx, s, x5, "ark:12345/y1")
	wantStatus(t, "x5 reading ark:12345/y1", err, http.StatusForbidden)
	_, err = a.Put(ctx, s, ed, "ark:13030/y1", bind, api.Conditions{})
	wantStatus(t, "another site's NAAN", err, http.StatusBadRequest)
	_, err = a.Put(ctx, s, ed, "ark:12345/t1", bind, api.Conditions{})
	wantStatus(t, "an identifier the table assigns", err, http.StatusConflict)
	if err == nil || !strings.Contains(err.Error(), "assigned by") {
		t.Errorf("the refusal does not name the table: %v", err)
	}
	_, err = a.Put(ctx, s, ed, "ark:12345/x5c", api.BindRequest{Target: "https://example.org/", Status: http.StatusGone}, api.Conditions{})
	wantStatus(t, "status 410 through Put", err, http.StatusBadRequest)
	_, err = a.Get(ctx, s, ed, "ark:12345/x5none")
	wantStatus(t, "Get of an identifier never stored", err, http.StatusNotFound)
}

// Mint through the API: names from the shoulder's minter, bound at once
// with {id} standing for each name; a key must be allowed the shoulder.
func TestMintThroughTheAPI(t *testing.T) {
	a, s := newAPI(t)
	ctx := context.Background()
	ids, err := a.Mint(ctx, s, caller(t, a, "editor"), "ark:/12345/m", 2, &api.BindRequest{Target: "https://example.org/{id}"})
	if err != nil || len(ids) != 2 {
		t.Fatalf("Mint: %v, %v", ids, err)
	}
	for _, id := range ids {
		b, _, err := s.store.Get(ctx, id)
		if err != nil || b.Target != "https://example.org/"+id {
			t.Errorf("%s: %+v, %v; want bound to its own target", id, b, err)
		}
	}
	_, err = a.Mint(ctx, s, caller(t, a, "x5"), "ark:12345/m", 1, nil)
	wantStatus(t, "x5 minting under ark:12345/m", err, http.StatusForbidden)
	_, err = a.Mint(ctx, s, caller(t, a, "editor"), "ark:12345/m", mint.MintMax+1, nil)
	wantStatus(t, "too many names", err, http.StatusBadRequest)
	_, err = a.Mint(ctx, s, caller(t, a, "editor"), "ark:12345/q", 1, nil)
	wantStatus(t, "a shoulder without a minter", err, http.StatusNotFound)
}

// An import keeps all of a table or nothing, and an export gives back
// what the key may read, minted names left out.
func TestImportExport(t *testing.T) {
	a, s := newAPI(t)
	ctx := context.Background()
	ed := caller(t, a, "editor")
	good := `{"entries": [
		{"id": "ark:12345/x5i1", "target": "https://example.org/i1"},
		{"id": "ark:12345/y5i2", "target": "https://example.org/i2", "meta": {"who": "Ada"}}
	]}`
	res, err := a.Import(ctx, s, ed, strings.NewReader(good))
	if err != nil || res.Entries != 2 || res.Imported != 2 {
		t.Fatalf("Import: %+v, %v", res, err)
	}
	bad := `{"entries": [{"id": "ark:12345/x5i3", "target": "https://example.org/i3"}, {"id": "ark:12345/t1", "target": "https://example.org/"}]}`
	_, err = a.Import(ctx, s, ed, strings.NewReader(bad))
	wantStatus(t, "an import with an entry the table assigns", err, http.StatusConflict)
	if _, _, err := s.store.Get(ctx, "ark:12345/x5i3"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("x5i3 after a refused import: %v, want nothing kept", err)
	}
	if _, err := a.Mint(ctx, s, ed, "ark:12345/m", 1, nil); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{"editor": {"ark:12345/x5i1", "ark:12345/y5i2"}, "x5": {"ark:12345/x5i1"}} {
		var got []string
		err := a.Export(ctx, s, caller(t, a, name), func(e table.Entry) error {
			got = append(got, e.ID)
			return nil
		})
		if err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("Export as %s: %v, %v; want %v", name, got, err, want)
		}
	}
}

// A BindPatch is written as the merge patch PATCH id/<id> reads: the
// fields it sets, null for those set back to their default.
func TestBindPatchJSON(t *testing.T) {
	who := "Ada"
	p := &api.BindPatch{SetStatus: true, SetPassthrough: true, SetMeta: true, Meta: map[string]*string{"who": &who, "old": nil}}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	meta, _ := got["meta"].(map[string]any)
	if _, ok := got["target"]; ok || got["status"] != 0.0 || got["passthrough"] != nil || meta["who"] != "Ada" || meta["old"] != nil || len(got) != 3 {
		t.Errorf("%s", data)
	}
	if !bytes.Contains(data, []byte(`"old":null`)) || !(&api.BindPatch{}).Empty() || p.Empty() {
		t.Errorf("%s: a removed key is null, and only a patch that sets nothing is empty", data)
	}
}
