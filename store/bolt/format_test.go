package bolt

import (
	"bytes"
	"context"
	be "encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/storetest"
	"github.com/caddyserver/caddy/v2"
	bolt "go.etcd.io/bbolt"
)

// format1File writes testdata/format1.db.gz, a store file written by the
// last version that held JSON (commit 2a14957: bindings changed, withdrawn,
// reserved and imported, counters, and a committed import not merged
// yet), into a temporary directory and returns its path.
// testdata/format1.dump is what that version dumped of it.
func format1File(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "format1.db")
	testkit.Gunzip(t, "testdata/format1.db.gz", path)
	return path
}

// formatOf returns the format recorded in the store file at path, 0 for
// none.
func formatOf(t *testing.T, path string) uint64 {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var f uint64
	_ = db.View(func(tx *bolt.Tx) error {
		if bk := tx.Bucket(bucketFile); bk != nil && len(bk.Get(keyFormat)) == 8 {
			f = be.BigEndian.Uint64(bk.Get(keyFormat))
		}
		return nil
	})
	return f
}

// format1Dump returns testdata/format1.dump, a dump of version 1 (no
// statistics), and the same written as a dump of the current version.
func format1Dump(t *testing.T) (old, current string) {
	t.Helper()
	data, err := os.ReadFile("testdata/format1.dump")
	if err != nil {
		t.Fatal(err)
	}
	old = string(data)
	current = strings.Replace(old, `{"format":"caddy-ark store dump","version":1}`, `{"format":"caddy-ark store dump","version":2}`, 1)
	current = strings.Replace(current, `"counters":2}}`, `"counters":2,"stats":0}}`, 1)
	if strings.Count(current, `"version":2}`) != 1 || !strings.Contains(current, `"stats":0`) {
		t.Fatalf("testdata/format1.dump is not as this test expects it")
	}
	return old, current
}

// A file of format 1 (JSON) opens, dumps what the version that wrote it
// dumped, byte for byte but for the dump's version, and goes on: it is
// marked format 2, its changes are written compact, and old and new
// records read together after a restart. Opened read only, it is read and
// dumped (its committed import as the merge will leave it) and left as
// it was, byte for byte.
func TestBoltReadsAFileOfFormat1(t *testing.T) {
	ctx := context.Background()
	_, want := format1Dump(t)

	path := format1File(t)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ro, closeRO, err := OpenReadOnly(path)
	if err != nil {
		t.Fatalf("read only: %v", err)
	}
	got, err := ro.Lookup(ctx, []string{"ark:12345/d1", "ark:12345/d2", "urn:isbn:9780306406157"})
	if err != nil || got[0] == nil || got[0].Target != "/objects/d1.html" || got[1] == nil || got[1].Reason != "duplicate" || got[2] == nil || got[2].Status != 303 {
		t.Errorf("read only, Lookup: %+v, %v", got, err)
	}
	var roDump bytes.Buffer
	if _, err := store.WriteDump(ctx, ro, &roDump); err != nil {
		t.Fatalf("read only, dump: %v", err)
	}
	if roDump.String() != want {
		t.Errorf("read only, a file of format 1 dumps differently than the version that wrote it:\n%s\nwant:\n%s", roDump.String(), want)
	}
	closeRO()
	if f := formatOf(t, path); f != 0 {
		t.Errorf("opened read only, the file was marked format %d", f)
	}
	if after, err := os.ReadFile(path); err != nil || !bytes.Equal(after, before) {
		t.Errorf("opened read only and dumped, the file changed (%v)", err)
	}

	s := openBoltStore(t, path)
	var dump bytes.Buffer
	if _, err := store.WriteDump(ctx, s, &dump); err != nil {
		t.Fatal(err)
	}
	if dump.String() != want {
		t.Errorf("a file of format 1 dumps differently than the version that wrote it:\n%s\nwant:\n%s", dump.String(), want)
	}
	old, _, err := s.Get(ctx, "ark:12345/d1")
	if err != nil {
		t.Fatal(err)
	}
	changed, err := s.Apply(ctx, store.Write{Binding: store.Binding{Key: "ark:12345/d1", Target: "https://example.org/new", Status: 302}, IfVersion: old.Version, By: "dora"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if f := formatOf(t, path); f != formatCurrent {
		t.Errorf("after a write, the file is marked format %d, want %d", f, formatCurrent)
	}
	s = openBoltStore(t, path)
	cur, hist, err := s.Get(ctx, "ark:12345/d1")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cur, changed) {
		t.Errorf("after a restart: %+v, want %+v", cur, changed)
	}
	if len(hist) != 3 || hist[0].By != "alice" || hist[1].By != "bob" || hist[2].By != "dora" || !reflect.DeepEqual(hist[2].Old, old) || !reflect.DeepEqual(hist[2].New, changed) {
		t.Errorf("history of old and new records: %+v", hist)
	}
}

// The dump that the last version that held JSON wrote, of version 1,
// loads into a new store, which dumps it again as version 2 without
// statistics.
func TestBoltLoadsADumpOfVersion1(t *testing.T) {
	ctx := context.Background()
	old, want := format1Dump(t)
	s := openBoltStore(t, filepath.Join(t.TempDir(), "store.db"))
	counts, err := store.ReadDump(ctx, s, strings.NewReader(old))
	if err != nil || counts != (store.DumpCounts{Bindings: 46, Changes: 48, Counters: 2}) {
		t.Fatalf("loading a dump of version 1: %v, %v", counts, err)
	}
	var dump bytes.Buffer
	if _, err := store.WriteDump(ctx, s, &dump); err != nil {
		t.Fatal(err)
	}
	if dump.String() != want {
		t.Errorf("a dump of version 1, loaded, dumps:\n%s\nwant:\n%s", dump.String(), want)
	}
}

// A file of a newer format than this version reads is refused, opened
// for writing or read only, with an error that says what to do.
func TestBoltRefusesAFileOfANewerFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s := openBoltStore(t, path)
	if err := s.Cleanup(); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketFile).Put(keyFormat, be.BigEndian.AppendUint64(nil, formatCurrent+1))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	newer := &Store{Path: path}
	err = newer.Provision(caddy.Context{})
	if err == nil {
		newer.Cleanup()
	}
	if err == nil || !strings.Contains(err.Error(), "newer version of caddy-ark") || !strings.Contains(err.Error(), path) {
		t.Errorf("opening a file of a newer format: %v", err)
	}
	if _, closeRO, err := OpenReadOnly(path); err == nil || !strings.Contains(err.Error(), "newer version of caddy-ark") {
		if err == nil {
			closeRO()
		}
		t.Errorf("opening it read only: %v", err)
	}
	if f := formatOf(t, path); f != formatCurrent+1 {
		t.Errorf("refused, the file's format became %d", f)
	}

	// With skip_check too, though its bindings are in an encoding this
	// version cannot read (as a newer one's may be): the file is of a
	// newer version, not damaged.
	db, err = bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketBindings).Put([]byte("ark:12345/x1"), []byte{0xff, 0xfe, 0xfd})
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	unchecked := &Store{Path: path, SkipCheck: true}
	err = unchecked.Provision(caddy.Context{})
	if err == nil {
		unchecked.Cleanup()
	}
	if err == nil || !strings.Contains(err.Error(), "newer version of caddy-ark") || strings.Contains(err.Error(), "damaged") {
		t.Errorf("opening it with skip_check: %v", err)
	}
}

// Bindings and history records come back as they went in, every field,
// and a value cut short anywhere fails as damaged, never panics.
func TestBoltCodec(t *testing.T) {
	at := time.Date(2026, 11, 27, 21, 14, 47, 213018000, time.UTC)
	bindings := []*store.Binding{
		{Key: "ark:12345/a", Target: "https://example.org/a", Status: 302, Version: 1, Updated: at, By: "importer"},
		{Key: "ark:12345/b", Status: 410, Passthrough: true, Reason: "gone \u2028 away", Version: 1 << 40, Updated: at.Add(time.Nanosecond), By: ""},
		{Key: "urn:isbn:9780306406157", Target: "/objects/x.html", Status: 200, Meta: map[string]string{"who": "Ada", "": "", "what": "дневник"}, Version: 3},
		{Key: "ark:12345/reserved", Version: 1, Updated: time.Unix(-1, 999_999_999).UTC(), By: "minter"},
	}
	for _, b := range bindings {
		v := encodeBinding(b)
		got, err := decodeBinding(b.Key, v)
		if err != nil || !reflect.DeepEqual(got, b) {
			t.Errorf("binding %+v came back %+v, %v", b, got, err)
		}
		for n := range len(v) {
			if _, err := decodeBinding(b.Key, v[:n]); !errors.Is(err, errDamaged) {
				t.Errorf("binding %s cut to %d of %d bytes: %v", b.Key, n, len(v), err)
			}
		}
	}
	changes := []*store.Change{
		{Seq: 1, Time: at, Key: bindings[0].Key, By: "importer", New: bindings[0]},
		{Seq: 1 << 50, Time: at, Key: bindings[1].Key, By: "carol", Old: bindings[0], New: bindings[1]},
		{Seq: 3, Time: at, Key: "ark:12345/c"},
	}
	for _, ch := range changes {
		v := encodeChange(ch)
		seq := be.BigEndian.AppendUint64(nil, ch.Seq)
		got, err := decodeChange(seq, v)
		if err != nil || !reflect.DeepEqual(got, ch) {
			t.Errorf("change %+v came back %+v, %v", ch, got, err)
		}
		for n := range len(v) {
			if _, err := decodeChange(seq, v[:n]); !errors.Is(err, errDamaged) {
				t.Errorf("change %d cut to %d of %d bytes: %v", ch.Seq, n, len(v), err)
			}
		}
	}
	json := []byte(`{"id":"ark:12345/j","target":"https://example.org/j","status":302,"passthrough":false,"version":1,"updated":"2026-11-27T21:14:47.213018Z","by":"x"}`)
	if got, err := decodeBinding("ark:12345/j", json); err != nil || got.Target != "https://example.org/j" || !got.Updated.Equal(at) {
		t.Errorf("a binding in JSON: %+v, %v", got, err)
	}
}

// An import into a new file costs about 300 bytes of pages a binding,
// history and indexes included: compact records on pages filled as the
// keys come in sorted (JSON on half-filled pages took 1,200).
func TestBoltBytesPerImportedBinding(t *testing.T) {
	const n = 20000
	s := openBoltStore(t, filepath.Join(t.TempDir(), "store.db"))
	if _, err := s.Import(context.Background(), storetest.Bindings(n), "importer"); err != nil {
		t.Fatal(err)
	}
	var pages int
	testkit.WaitFor(t, "the merger", func() bool {
		pages = 0
		left := 0
		_ = s.db.View(func(tx *bolt.Tx) error {
			left = tx.Bucket(bucketImports).Stats().KeyN
			return tx.ForEach(func(_ []byte, b *bolt.Bucket) error {
				st := b.Stats()
				pages += st.BranchAlloc + st.LeafAlloc
				return nil
			})
		})
		return left == 0
	})
	if per := pages / n; per > 350 {
		t.Errorf("%d bindings imported take %d bytes of pages, %d a binding; want at most 350", n, pages, per)
	}
}
