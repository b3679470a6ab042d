package localcopy_test

import (
	"context"
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

// restartSetup returns a bbolt store whose Key(1) is bound to v1, and the
// directory of a copy of it, built and closed.
func restartSetup(t *testing.T) (store.Store, string) {
	t.Helper()
	s := testkit.Provision(t, &bolt.Store{Path: filepath.Join(t.TempDir(), "ark.db")})
	importN(t, s, 10)
	bind(t, s, store.Binding{Key: storetest.Key(1), Target: "https://v1.example.org/", Status: 302})
	dir := t.TempDir()
	if err := openCopy(t, dir, s, localcopy.Options{Poll: time.Hour}).Close(); err != nil {
		t.Fatal(err)
	}
	return s, dir
}

// A node restarted while the store is up answers from the store until its
// copy has read the history to its end: an identifier withdrawn by
// another node while this one was down, answered 410 from the store, is
// never answered live again from the copy on disk.
func TestCopyAfterARestartNeverAnswersOlderThanTheStore(t *testing.T) {
	s, dir := restartSetup(t)
	bind(t, s, store.Binding{Key: storetest.Key(1), Status: 410, Reason: "withdrawn by another node"})
	held := heldHistory{s, make(chan struct{})}
	c, err := localcopy.Open(dir, held, localcopy.Options{Poll: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	testkit.WaitFor(t, "the copy on disk to be checked and installed", func() bool { return c.Status().Seq != 0 })
	read := localcopy.Wrap(s, c)
	before, err := read.Lookup(context.Background(), []string{storetest.Key(1)})
	if err != nil || before[0] == nil || before[0].Status != 410 {
		t.Fatalf("before the copy read the history: %s %v, want the store's 410", describe(before[0]), err)
	}
	if st := c.Status(); c.Serving() || st.State != "opening" {
		t.Fatalf("the copy serves before it read the history: %+v", st)
	}
	close(held.released)
	testkit.WaitFor(t, "the copy to serve", c.Serving)
	after, err := read.Lookup(context.Background(), []string{storetest.Key(1)})
	if err != nil || after[0] == nil || after[0].Status != 410 {
		t.Errorf("answered %s from the store, then %s from the copy (%v)", describe(before[0]), describe(after[0]), err)
	}
}

// A write of the restarted node made while its copy is opened is in the
// copy once it serves.
func TestCopyAfterARestartKeepsItsOwnWrites(t *testing.T) {
	s, dir := restartSetup(t)
	held := heldHistory{s, make(chan struct{})}
	c, err := localcopy.Open(dir, held, localcopy.Options{Poll: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	read := localcopy.Wrap(s, c)
	if _, err := read.Apply(context.Background(), store.Write{Binding: store.Binding{Key: storetest.Key(1), Target: "https://v2.example.org/", Status: 302}, By: "test"}); err != nil {
		t.Fatal(err)
	}
	close(held.released)
	testkit.WaitFor(t, "the copy to serve", c.Serving)
	got, err := read.Lookup(context.Background(), []string{storetest.Key(1)})
	if err != nil || got[0] == nil || got[0].Target != "https://v2.example.org/" {
		t.Errorf("a write made while the copy was opened, read once it serves: %s %v", describe(got[0]), err)
	}
}

// A base larger than what the check reads at a time is checked whole: it
// serves as it is, and with one byte flipped past the first 16 MiB it is
// not served.
func TestCopyChecksALargeBaseWhole(t *testing.T) {
	s := testkit.Provision(t, &bolt.Store{Path: filepath.Join(t.TempDir(), "ark.db"), SkipCheck: true})
	importN(t, s, 250_000)
	dir := t.TempDir()
	if err := openCopy(t, dir, s, localcopy.Options{Poll: time.Hour}).Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "bindings.base")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) <= 17<<20 {
		t.Fatalf("the base is %d bytes: too small for this test", len(data))
	}
	if err := openFromDisk(t, dir, s).Close(); err != nil {
		t.Fatal(err)
	}
	data[17<<20] ^= 0x01
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if opened(t, dir, s).Serving() {
		t.Error("a base damaged past its first 16 MiB serves")
	}
}
