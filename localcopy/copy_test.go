package localcopy_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/localcopy"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddy-ark/caddy-ark/store/storetest"
)

// changeSome makes, through s, a new binding, a retarget with metadata,
// a withdrawal, a minted name (Status 0) and a passthrough change, and
// returns the keys it touched.
func changeSome(t *testing.T, s store.Store, round int) []string {
	t.Helper()
	fresh := storetest.Key(100000 + round)
	bind(t, s, store.Binding{Key: fresh, Target: "/new/" + fresh, Status: 200})
	bind(t, s, store.Binding{Key: storetest.Key(1), Target: "https://elsewhere.example.org/1", Status: 303,
		Meta: map[string]string{"who": "round", "when": time.Now().Format(time.RFC3339Nano)}})
	withdrawn := storetest.Key(10 + round)
	bind(t, s, store.Binding{Key: withdrawn, Status: 410, Reason: "gone in round"})
	minted := storetest.Key(200000 + round)
	if _, err := s.Reserve(context.Background(), []store.Binding{{Key: minted}}, "test"); err != nil {
		t.Fatal(err)
	}
	bind(t, s, store.Binding{Key: storetest.Key(2), Target: "https://repo.example.org/2", Status: 302, Passthrough: true})
	return []string{fresh, storetest.Key(1), withdrawn, minted, storetest.Key(2)}
}

// TestCopyFollowsTheStore builds a copy of a store's bindings, then
// changes the store behind the copy's back, as another node does: the
// copy reads the changes from the history, and answers every key as the
// store does, minted names and withdrawals included; reopened, it has
// them still.
func TestCopyFollowsTheStore(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			s := be.open(t)
			importN(t, s, 500)
			changeSome(t, s, 0)
			dir := t.TempDir()
			c := openCopy(t, dir, s, localcopy.Options{Poll: time.Hour})
			sameAsStore(t, c, s, storetest.Key(999999))
			var touched []string
			for round := 1; round <= 3; round++ {
				touched = append(touched, changeSome(t, s, round)...)
			}
			catchUp(t, c)
			sameAsStore(t, c, s, touched...)
			seq := c.Seq()
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			again := openCopy(t, dir, s, localcopy.Options{Poll: time.Hour})
			if again.Seq() != seq {
				t.Errorf("reopened at seq %d, closed at %d", again.Seq(), seq)
			}
			sameAsStore(t, again, s, touched...)
		})
	}
}

// TestCopyAppliesEachChangeOnce folds the journal into a new base every
// few records while the store changes, then checks the copy against the
// store, and again reopened from the compacted files.
func TestCopyAppliesEachChangeOnce(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			s := be.open(t)
			importN(t, s, 200)
			dir := t.TempDir()
			c := openCopy(t, dir, s, localcopy.Options{Poll: time.Hour, CompactAfter: 4})
			for round := 1; round <= 6; round++ {
				changeSome(t, s, round)
				catchUp(t, c)
				catchUp(t, c) // the compaction that the catch-up made room for
			}
			sameAsStore(t, c, s)
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			sameAsStore(t, openCopy(t, dir, s, localcopy.Options{Poll: time.Hour}), s)
		})
	}
}

// TestCopyTornJournal cuts the journal in the middle of its last record
// and appends garbage, as a crash during a write may leave it: the copy
// opens at the last whole record, never reads the torn one, and the
// history brings it back.
func TestCopyTornJournal(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			s := be.open(t)
			importN(t, s, 100)
			dir := t.TempDir()
			c := openCopy(t, dir, s, localcopy.Options{Poll: time.Hour})
			changeSome(t, s, 1)
			catchUp(t, c)
			seq := c.Seq()
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "bindings.journal")
			whole, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, int64(len(whole))-3); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write([]byte{9, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7})
			f.Close()

			torn, err := localcopy.Open(dir, s, localcopy.Options{Poll: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = torn.Close() })
			catchUp(t, torn)
			if torn.Seq() != seq {
				t.Errorf("caught up to seq %d, want %d", torn.Seq(), seq)
			}
			sameAsStore(t, torn, s)
			if err := torn.Close(); err != nil {
				t.Fatal(err)
			}
			// The torn record and what followed it were cut off, and the
			// record read again from the store: the journal is what it
			// was before the tear. (Its sequence number right after Open
			// would say so too, but the copy starts to follow the store
			// at once.)
			if again, err := os.ReadFile(path); err != nil || !bytes.Equal(again, whole) {
				t.Errorf("the journal after the torn end: %d bytes (%v), want the %d it had before", len(again), err, len(whole))
			}
		})
	}
}

// TestCopyDamagedBase damages the base file (a byte flipped in its
// records, in its index; a base of the format before the index was
// hashed, as an upgraded node finds it): the copy does not read it but
// builds itself again from the store.
func TestCopyDamagedBase(t *testing.T) {
	damages := map[string]func(data []byte){
		"a record":  func(data []byte) { data[len(data)/4] ^= 0x20 },
		"the index": func(data []byte) { data[len(data)-100] ^= 0x01 },
		"format 1":  func(data []byte) { data[7], data[len(data)-1] = 1, 1 },
	}
	for _, be := range backends {
		for what, damage := range damages {
			t.Run(be.name+"/"+what, func(t *testing.T) {
				s := be.open(t)
				importN(t, s, 100)
				dir := t.TempDir()
				c := openCopy(t, dir, s, localcopy.Options{Poll: time.Hour})
				if err := c.Close(); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(dir, "bindings.base")
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				damage(data)
				if err := os.WriteFile(path, data, 0o600); err != nil {
					t.Fatal(err)
				}
				if opened(t, dir, s).Serving() {
					t.Fatal("a copy with a damaged base serves before it is built again")
				}
				again := openCopy(t, dir, s, localcopy.Options{Poll: time.Hour})
				sameAsStore(t, again, s)
			})
		}
	}
}

// TestCopyOfARestoredStore: the store is restored from a backup older
// than the copy (its history ends before the copy's sequence number):
// the copy, reopened on it, is built again and answers as the restored
// store does, and follows the changes made after the restore.
func TestCopyOfARestoredStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ark.db")
	live := testkit.Provision(t, &bolt.Store{Path: path})
	importN(t, live, 50)
	r, _, err := live.Backup(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	backup := filepath.Join(t.TempDir(), "backup.db")
	f, err := os.Create(backup)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, r); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r.Close()
	dir := t.TempDir()
	c := openCopy(t, dir, live, localcopy.Options{Poll: time.Hour})
	changeSome(t, live, 1)
	changeSome(t, live, 2)
	catchUp(t, c)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	restored := testkit.Provision(t, &bolt.Store{Path: backup})
	bind(t, restored, store.Binding{Key: storetest.Key(1), Target: "https://after-restore.example.org/", Status: 302})
	again := openCopy(t, dir, restored, localcopy.Options{Poll: time.Hour, RestoreCheck: time.Nanosecond})
	// Built again once two checks in a row found the history behind.
	testkit.WaitFor(t, "the copy to be built again", func() bool {
		catchUp(t, again)
		got, err := again.Lookup([]string{storetest.Key(1)})
		return err == nil && got[0] != nil && got[0].Target == "https://after-restore.example.org/"
	})
	sameAsStore(t, again, restored, storetest.Key(100001), storetest.Key(11), storetest.Key(12))
	bind(t, restored, store.Binding{Key: storetest.Key(2), Target: "https://later.example.org/", Status: 302})
	catchUp(t, again)
	sameAsStore(t, again, restored)
}

// TestCopyCompactionCut: a crash between the two renames of a compaction
// leaves the new base with the old journal, whose records are in the
// base already: the journal is dropped, not applied to the new base (its
// batch given back would take a later binding back), and the copy
// answers as the store does.
func TestCopyCompactionCut(t *testing.T) {
	s := backends[0].open(t)
	importN(t, s, 100)
	dir := t.TempDir()
	c := openCopy(t, dir, s, localcopy.Options{Poll: time.Hour})
	changeSome(t, s, 1)
	// A batch given back: the journal has its part, from the history,
	// then the binding as it was before it, whatever its version.
	ctx := context.Background()
	w, err := localcopy.Wrap(s, c).OpenBatch(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Apply(ctx, []store.Write{{Binding: store.Binding{Key: storetest.Key(1), Target: "https://given-back.example.org/", Status: 302}, By: "test"}}); err != nil {
		t.Fatal(err)
	}
	catchUp(t, c)
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(dir, "bindings.journal")
	old, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	// Changed again after the old journal, then folded into a new base.
	bind(t, s, store.Binding{Key: storetest.Key(1), Target: "https://after-the-fold.example.org/", Status: 302})
	compacting := openCopy(t, dir, s, localcopy.Options{Poll: time.Hour, CompactAfter: 1})
	catchUp(t, compacting)
	if err := compacting.Close(); err != nil {
		t.Fatal(err)
	}
	if now, err := os.ReadFile(journal); err != nil || len(now) >= len(old) {
		t.Fatalf("the journal was not folded into the base: %d bytes, %d before (%v)", len(now), len(old), err)
	}
	if err := os.WriteFile(journal, old, 0o600); err != nil {
		t.Fatal(err)
	}
	fromDisk := openFromDisk(t, dir, s)
	got, err := fromDisk.Lookup([]string{storetest.Key(1)})
	if err != nil || got[0] == nil || got[0].Target != "https://after-the-fold.example.org/" {
		t.Errorf("after the cut compaction, before any read of the history: %s %v", describe(got[0]), err)
	}
	if err := fromDisk.Close(); err != nil {
		t.Fatal(err)
	}
	sameAsStore(t, openCopy(t, dir, s, localcopy.Options{Poll: time.Hour}), s)
}
