package localcopy_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/localcopy"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/postgres"
	"github.com/caddyserver/caddy/v2"
)

// TestCopyAfterALapse: a node's copy follows a primary and its
// synchronous standby, the primary over a link that, from just before
// another node withdraws an identifier, loses everything the primary
// sends, so that the node does not hear of the withdrawal; then the
// primary is killed. Once the node has noticed that its listener lost
// the primary, the copy's first lookup (LookupOne, as the resolver asks
// for an identifier) answers the identifier withdrawn, as the standby
// holds it: the copy reads the history at once, and the lookup waits for
// that read. Then the standby dies too, while the node follows it: once
// the copy has failed to read the history, lookups answer from the copy
// as it is at once, though a lookup may wait a minute for a read after a
// lapse.
func TestCopyAfterALapse(t *testing.T) {
	const lapseWait = time.Minute
	r := testkit.StartReplicated(t)
	db := r.CreateDB(t)
	other := testkit.Provision(t, &postgres.Store{DSN: r.Primary.DSN(db), Timeout: caddy.Duration(5 * time.Second)})
	link := testkit.StartLink(t, r.Primary.Port)
	node := testkit.Provision(t, &postgres.Store{
		DSN:     fmt.Sprintf("host=127.0.0.1,127.0.0.1 port=%d,%d user=ark dbname=%s sslmode=disable target_session_attrs=read-write", link.Port, r.Standby.Port, db),
		Timeout: caddy.Duration(5 * time.Second),
	})
	const victim = "ark:12345/victim"
	bind(t, other, store.Binding{Key: victim, Target: "https://repo.example.org/victim", Status: http.StatusFound})
	c := openCopy(t, t.TempDir(), node, localcopy.Options{Poll: time.Hour, LapseWait: lapseWait})
	lookup := func() *store.Binding {
		t.Helper()
		bs, err := c.Lookup([]string{victim})
		if err != nil || bs[0] == nil {
			t.Fatalf("lookup of %s: %v %v", victim, bs, err)
		}
		return bs[0]
	}
	if got := lookup(); got.Status != http.StatusFound {
		t.Fatalf("%s before the withdrawal: %s", victim, describe(got))
	}
	replication := node.Replication
	testkit.WaitFor(t, "the node to follow the primary", func() bool {
		rp := replication()
		return rp.Following && rp.Server == "primary"
	})

	link.Deafen()
	bind(t, other, store.Binding{Key: victim, Status: http.StatusGone, Reason: "withdrawn while the node hears nothing"})
	if got := lookup(); got.Status != http.StatusFound {
		t.Fatalf("the node heard of the withdrawal through a deaf link (%s): the test proves nothing", describe(got))
	}
	r.KillPrimary(t)
	testkit.WaitFor(t, "the node to notice that it lost the primary", func() bool {
		rp := replication()
		return !rp.Following || rp.Server == "standby"
	})
	// LookupOne, as the resolver asks for an identifier.
	if got, found, err := c.LookupOne(victim); err != nil || !found || got.Status != http.StatusGone {
		t.Fatalf("%s once the node noticed that it lost the primary: found %t, %s %v, want withdrawn (the standby holds it)", victim, found, describe(&got), err)
	}

	testkit.WaitFor(t, "the node to follow the standby", func() bool {
		rp := replication()
		return rp.Following && rp.Server == "standby"
	})
	if err := r.Standby.Kill(); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the copy to fail to read the history", func() bool { return !c.Status().Following })
	began := time.Now()
	got := lookup()
	if took := time.Since(began); took >= lapseWait/2 {
		t.Errorf("a lookup with no server answering took %v: it waited for a read that had failed", took)
	}
	if got.Status != http.StatusGone {
		t.Errorf("%s with no server answering: %s, want withdrawn, as the copy holds it", victim, describe(got))
	}
}
