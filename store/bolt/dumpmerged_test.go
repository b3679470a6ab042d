package bolt

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/storetest"
	bolt "go.etcd.io/bbolt"
)

// A file holding committed imports that the merger has not merged, left
// by a process that stopped before the merge, dumps read only (as `caddy
// ark store dump` does) byte for byte as the same file dumps once a
// store opened for writing has merged them: bindings, history (its
// numbers and times), counters and statistics.
func TestBoltDumpOfUnmergedImportsIsTheMerge(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		// build leaves s with imports committed and not merged, and
		// returns how many.
		build func(t *testing.T, s *Store) int
	}{
		{"one import, an empty store", func(t *testing.T, s *Store) int {
			// More than a merge chunk: the merger moves it in two.
			importCommitted(t, s, feed(0, mergeChunkCount+500, "a", 1), "importer")
			return 1
		}},
		{"an import over written bindings", func(t *testing.T, s *Store) int {
			writeSome(t, s)
			// Keys 0-39 are bound already: it binds the same way those
			// that writeSome left as created (which it leaves out).
			importCommitted(t, s, overlapping(feed(50, 400, "b", 2), 0, 40, "w"), "importer")
			return 1
		}},
		{"two imports over each other and written bindings", func(t *testing.T, s *Store) int {
			writeSome(t, s)
			// Staged together: the second finds the first's keys only
			// when it commits, after the first.
			first, second := beginStaged(t, s, feed(100, 300, "c", 3), "ann"), beginStaged(t, s, overlapping(feed(200, 500, "c", 4), 0, 40, "w"), "ben")
			commit(t, s, first)
			commit(t, s, second)
			// Staged after both committed: it finds theirs as it stages.
			importCommitted(t, s, overlapping(feed(250, 700, "c", 5), 0, 40, "w"), "cat")
			return 3
		}},
		{"writes to an import's keys after its commit", func(t *testing.T, s *Store) int {
			writeSome(t, s)
			importCommitted(t, s, feed(100, 400, "d", 6), "importer")
			importCommitted(t, s, feed(400, 600, "d", 7), "importer")
			// Each write moves its key into the bindings first.
			for i := 100; i < 600; i += 37 {
				k := storetest.Key(i)
				if _, err := s.Apply(ctx, store.Write{Binding: store.Binding{Key: k, Target: "https://elsewhere.example.org/" + k, Status: 301}, IfVersion: 1, By: "eve"}); err != nil {
					t.Fatal(err)
				}
			}
			withdraw(t, s, storetest.Key(450), 1)
			if _, err := s.ApplyBatch(ctx, 9, []store.Write{
				{Binding: store.Binding{Key: storetest.Key(101), Target: "https://batch.example.org/101", Status: 302}, By: "fay"},
				{Binding: store.Binding{Key: storetest.Key(599), Target: "https://batch.example.org/599", Status: 302}, By: "fay"},
			}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Count(ctx, "ark:12345/x5", 3); err != nil {
				t.Fatal(err)
			}
			return 2
		}},
		{"a key in two imports and the bindings, written by hand", func(t *testing.T, s *Store) int {
			// The store never leaves a key in more than one of them (an
			// import leaves out or refuses a key bound already); a file
			// that does anyway is merged the last import's binding on.
			writeSome(t, s)
			first, second := beginStaged(t, s, feed(100, 200, "e", 9), "ann"), beginStaged(t, s, feed(200, 300, "e", 10), "ben")
			commit(t, s, first)
			commit(t, s, second)
			err := s.DB().Update(func(tx *bolt.Tx) error {
				bk := tx.Bucket(bucketStaged).Bucket(second.run.id)
				for i, key := range []int{2, 150, 151} { // a binding, two of the first import's keys
					b := bindingOf(key, "by hand")
					b.Version, b.Updated, b.By = 1, time.Date(2026, 11, 1, 0, 0, i, 0, time.UTC), "hand"
					if err := bk.Put([]byte(b.Key), stagedRecord(1000+i, encodeBinding(&b))); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			return 2
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path, mergePath := filepath.Join(dir, "store.db"), filepath.Join(dir, "merged.db")
			s := openMergerIdle(t, path)
			want := c.build(t, s)
			if err := s.Cleanup(); err != nil {
				t.Fatal(err)
			}
			if got := unmergedImports(t, path); got != want {
				t.Fatalf("the file holds %d committed imports not merged, want %d", got, want)
			}
			copyFile(t, path, mergePath)

			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			ro, closeRO, err := OpenReadOnly(path)
			if err != nil {
				t.Fatal(err)
			}
			var readOnly bytes.Buffer
			_, err = store.WriteDump(ctx, ro, &readOnly)
			closeRO()
			if err != nil {
				t.Fatalf("read only, dump: %v", err)
			}
			if after, err := os.ReadFile(path); err != nil || !bytes.Equal(after, before) {
				t.Errorf("dumped read only, the file changed (%v)", err)
			}

			m := openBoltStore(t, mergePath)
			testkit.WaitFor(t, "the merger", func() bool { return unmergedIn(t, m.DB()) == 0 })
			var merged bytes.Buffer
			if _, err := store.WriteDump(ctx, m, &merged); err != nil {
				t.Fatal(err)
			}
			if d := firstDifference(readOnly.String(), merged.String()); d != "" {
				t.Errorf("the read-only dump of the unmerged file differs from the merged file's dump: %s", d)
			}
			if strings.Count(merged.String(), "\n") < 100 {
				t.Errorf("the dump is not of the store built:\n%.2000s", merged.String())
			}
		})
	}
}

// openMergerIdle provisions a store on a new file at path and returns it
// once the merger has made its pass of the open (finding nothing): an
// import committed after that through commitImport, which does not wake
// the merger, stays unmerged until the store closes.
func openMergerIdle(t *testing.T, path string) *Store {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	made := txID(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	s := openBoltStore(t, path)
	// openBolt's own transaction, then the merger's.
	testkit.WaitFor(t, "the merger's pass at open", func() bool { return txID(t, s.DB()) >= made+2 })
	return s
}

// txID is the id of the last transaction committed to db.
func txID(t *testing.T, db *bolt.DB) int {
	t.Helper()
	id := 0
	if err := db.View(func(tx *bolt.Tx) error { id = tx.ID(); return nil }); err != nil {
		t.Fatal(err)
	}
	return id
}

// unmergedImports opens the file at path read only and returns how many
// committed imports it holds that are not merged.
func unmergedImports(t *testing.T, path string) int {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return unmergedIn(t, db)
}

// unmergedIn returns how many committed imports db holds that are not
// merged, failing t if their buckets disagree.
func unmergedIn(t *testing.T, db *bolt.DB) int {
	t.Helper()
	var marks, staged, runs int
	err := db.View(func(tx *bolt.Tx) error {
		marks, staged, runs = tx.Bucket(bucketImports).Stats().KeyN, tx.Bucket(bucketStaged).Stats().BucketN-1, tx.Bucket(bucketRuns).Stats().BucketN-1
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if marks != staged || runs != 0 {
		t.Fatalf("%d imports committed, %d staged, %d with runs left", marks, staged, runs)
	}
	return marks
}

// copyFile copies the file from to the new file to.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// bindingOf is the binding of storetest.Key(i) in the bindings of variant:
// redirects, with metadata, passthrough and a reason now and then.
func bindingOf(i int, variant string) store.Binding {
	k := storetest.Key(i)
	b := store.Binding{Key: k, Target: "https://repo.example.org/" + variant + "/" + k[len("ark:12345/"):], Status: 302}
	if i%5 == 0 {
		b.Meta = map[string]string{"who": "Author " + variant, "when": fmt.Sprint(1900 + i%120)}
	}
	if i%7 == 0 {
		b.Passthrough, b.Reason = true, "moved with its paths"
	}
	return b
}

// feed feeds an import the bindings of variant of the keys from to to-1,
// in an order that seed shuffles.
func feed(from, to int, variant string, seed uint64) func() (*store.Binding, error) {
	perm := rand.New(rand.NewPCG(seed, seed)).Perm(to - from)
	return func() (*store.Binding, error) {
		if len(perm) == 0 {
			return nil, io.EOF
		}
		b := bindingOf(from+perm[0], variant)
		perm = perm[1:]
		return &b, nil
	}
}

// overlapping feeds next's bindings, then those of variant of the keys
// from to to-1 that writeSome left bound that way (created, never
// changed or withdrawn), which an import leaves out.
func overlapping(next func() (*store.Binding, error), from, to int, variant string) func() (*store.Binding, error) {
	i := from
	return func() (*store.Binding, error) {
		b, err := next()
		if err != io.EOF {
			return b, err
		}
		for ; i < to; i++ {
			if untouched(i) {
				b := bindingOf(i, variant)
				i++
				return &b, nil
			}
		}
		return nil, io.EOF
	}
}

// untouched reports whether writeSome leaves key i as it created it.
func untouched(i int) bool { return i%3 != 0 && i%8 != 1 }

// writeSome writes to s as a running site does: keys 0-39 created one by
// one (every third changed again, every eighth withdrawn), 40-44 reserved
// by a minter, 45-49 bound in a batch, counters minted from, an import
// merged, and statistics counted.
func writeSome(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	for i := range 40 {
		if _, err := s.Apply(ctx, store.Write{Binding: bindingOf(i, "w"), Create: true, By: "alice"}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 40; i += 3 {
		b := bindingOf(i, "w2")
		b.Status = 301
		if _, err := s.Apply(ctx, store.Write{Binding: b, IfVersion: 1, By: "bob"}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i < 40; i += 8 {
		withdraw(t, s, storetest.Key(i), 0)
	}
	var reserved []store.Binding
	for i := 40; i < 45; i++ {
		reserved = append(reserved, store.Binding{Key: storetest.Key(i), Status: 404, Meta: map[string]string{"minted": "yes"}})
	}
	if _, err := s.Reserve(ctx, reserved, "minter"); err != nil {
		t.Fatal(err)
	}
	var batch []store.Write
	for i := 45; i < 50; i++ {
		batch = append(batch, store.Write{Binding: bindingOf(i, "batch"), By: "carol"})
	}
	if _, err := s.ApplyBatch(ctx, 7, batch); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ark:12345/x5", "ark:12345/y6"} {
		if _, err := s.Count(ctx, name, 5); err != nil {
			t.Fatal(err)
		}
	}
	// An import merged as a running site merges it.
	if _, err := s.Import(ctx, feed(900, 1000, "merged", 8), "importer"); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the merger", func() bool { return unmergedIn(t, s.DB()) == 0 })
	stats := &store.Stats{
		Resolutions: []store.ResolutionCount{{Day: "2026-11-01", Shoulder: "ark:12345/x5", Outcome: "redirect", Count: 12}, {Day: "2026-11-02", Shoulder: "", Outcome: "invalid", Count: 3}},
		Top:         []store.NameCount{{Day: "2026-11-01", ID: storetest.Key(2), Count: 9}, {Day: "2026-11-02", ID: storetest.Key(3), Count: 4}},
		NotFound:    []store.NameCount{{Day: "2026-11-01", ID: "ark:12345/x5nothing", Count: 2}},
	}
	if err := s.AddStats(ctx, stats, store.StatsKeep{Top: 10, NotFound: 10}); err != nil {
		t.Fatal(err)
	}
}

// withdraw withdraws key, at version ifVersion when it is not 0.
func withdraw(t *testing.T, s *Store, key string, ifVersion uint64) {
	t.Helper()
	if _, err := s.Apply(context.Background(), store.Write{Binding: store.Binding{Key: key, Status: 410, Reason: "withdrawn by its owner"}, IfVersion: ifVersion, By: "dan"}); err != nil {
		t.Fatal(err)
	}
}

// beginStaged begins an import of next into s and stages it, without
// committing it.
func beginStaged(t *testing.T, s *Store, next func() (*store.Binding, error), by string) stagedImport {
	t.Helper()
	run, err := s.beginImport()
	if err != nil {
		t.Fatal(err)
	}
	added, _, err := s.stage(context.Background(), run, next, by)
	if err != nil {
		t.Fatal(err)
	}
	return stagedImport{run, added}
}

// stagedImport is an import staged by beginStaged.
type stagedImport struct {
	run   *importRun
	added int
}

// commit commits the staged import im as Import does, but without waking
// the merger, and lets s forget it as Import does.
func commit(t *testing.T, s *Store, im stagedImport) {
	t.Helper()
	if _, err := s.commitImport(im.run, im.added); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	delete(s.staging, im.run)
	s.mu.Unlock()
}

// importCommitted imports next into s, committed and not merged.
func importCommitted(t *testing.T, s *Store, next func() (*store.Binding, error), by string) {
	t.Helper()
	commit(t, s, beginStaged(t, s, next, by))
}

// firstDifference describes the first line where dumps a and b differ,
// "" when they are the same.
func firstDifference(a, b string) string {
	if a == b {
		return ""
	}
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\nread only: %s\nmerged:    %s", i+1, x, y)
		}
	}
	return "same lines, different bytes"
}
