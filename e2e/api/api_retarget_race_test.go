package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddyserver/caddy/v2"
)

func init() {
	caddy.RegisterModule(&editingStore{Store: new(bolt.Store)})
}

// editingStore is the bolt store with another writer that edits, just
// before the first batch of writes, the metadata of its first key: the
// moment a retarget has read a binding and not written it yet, made to
// happen every time.
type editingStore struct {
	*bolt.Store
	once sync.Once
}

// CaddyModule returns the Caddy module information.
func (*editingStore) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "ark.stores.editingbolt",
		New: func() caddy.Module { return &editingStore{Store: new(bolt.Store)} },
	}
}

// OpenBatch opens a batch whose first part edits the first key's
// metadata first, as another writer would.
func (s *editingStore) OpenBatch(ctx context.Context, batch uint64) (store.BatchWriter, error) {
	w, err := s.Store.OpenBatch(ctx, batch)
	if err != nil {
		return nil, err
	}
	return &editingBatch{BatchWriter: w, s: s}, nil
}

// editingBatch is a batch of an editingStore.
type editingBatch struct {
	store.BatchWriter
	s *editingStore
}

// Apply edits the first key's metadata the first time, as another
// writer would, then makes the part.
func (w *editingBatch) Apply(ctx context.Context, ws []store.Write) ([]*store.Binding, error) {
	var err error
	w.s.once.Do(func() {
		var cur *store.Binding
		if cur, _, err = w.s.Get(ctx, ws[0].Binding.Key); err == nil {
			edited := *cur
			edited.Meta = map[string]string{"edit": "by someone else"}
			_, err = w.s.Apply(ctx, store.Write{Binding: edited, IfVersion: cur.Version, By: "someone"})
		}
	})
	if err != nil {
		return nil, err
	}
	return w.BatchWriter.Apply(ctx, ws)
}

// A binding changed between the retarget's read and its write is read
// again and retargeted as it has become: the other writer's edit is kept,
// and the retarget misses nothing.
func TestAPIRetargetKeepsAConcurrentEdit(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	if err := s.Load(strings.Replace(caddytest.APISiteBody(s.DB, s.Table, ""), "store bolt ", "store editingbolt ", 1)); err != nil {
		t.Fatal(err)
	}
	const n = 1200
	var lines []string
	for i := range n {
		lines = append(lines, fmt.Sprintf(`{"op": "bind", "id": "ark:12345/x5e%04d", "target": "https://old.example.org/%d"}`, i, i))
	}
	for _, r := range caddytest.BulkResults(t, s.Call("POST", "/bulk", "editor", strings.Join(lines, "\n"))) {
		if r.Status >= 300 {
			t.Fatalf("bulk line %d: %d %s", r.Line, r.Status, r.Error)
		}
	}
	var res api.RetargetResult
	if got := apiRetarget(s, "editor", api.RetargetRequest{From: "https://old.example.org/", To: "https://new.example.org/"}, &res); got.Status != http.StatusOK {
		t.Fatalf("retarget: %d %s", got.Status, got.Body)
	}
	if res.Count != n || len(res.Skipped) != 0 {
		t.Errorf("retarget: count %d, skipped %v; want %d and none", res.Count, res.Skipped, n)
	}
	rec := s.Lookup("ark:12345/x5e0000")
	if b := rec.Binding; b.Target != "https://new.example.org/0" || b.Meta["edit"] != "by someone else" || len(rec.History) != 3 {
		t.Errorf("the binding edited meanwhile: %+v, %d changes; want the edit kept and the retarget made after it", b, len(rec.History))
	}
	data, _ := json.Marshal(rec.History[2])
	if h := rec.History[2]; h.By != "editor" || h.Batch != res.Batch || h.Old.Meta["edit"] != "by someone else" {
		t.Errorf("the retarget's change: %s", data)
	}
	if got := apiAllIDs(s, "prefix=ark:12345/x5e&q=old.example.org", "editor", 1000); len(got) != 0 {
		t.Errorf("left on the old host: %v", got)
	}
}
