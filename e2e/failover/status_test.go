package failover

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/postgres"
)

// TestStoreStatus runs `caddy ark store status` on a connection string
// that names a primary and its standby, through a failover: both up,
// the standby streaming and holding the primary's history; the primary
// killed (down, the standby no longer streaming, no primary); the
// standby promoted (the primary it is now); both down (exit status 1).
// No connection string, a bolt file or a timeout of 0 are refused.
func TestStoreStatus(t *testing.T) {
	r := testkit.StartReplicated(t)
	db := r.CreateDB(t)
	dsn := r.DSN(db, "read-write")
	st := testkit.Provision(t, &postgres.Store{DSN: dsn})
	if _, err := st.Apply(context.Background(), store.Write{Binding: store.Binding{Key: "ark:12345/x5s", Target: "/s", Status: 302}, By: "t"}); err != nil {
		t.Fatal(err)
	}
	st.Cleanup()
	primary := fmt.Sprintf("127.0.0.1:%d", r.Primary.Port)
	standby := fmt.Sprintf("127.0.0.1:%d", r.Standby.Port)

	// status runs the command and returns its lines by server, and its
	// last line.
	status := func(wantErr string) (map[string]string, string) {
		t.Helper()
		out, stderr, err := caddytest.RunArkCommand(t, "", "store", "status", "--store", dsn, "--timeout", "1s")
		if wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), wantErr) {
				t.Fatalf("status: %v (stderr %q), want %q", err, stderr, wantErr)
			}
		} else if err != nil {
			t.Fatalf("status: %v\n%s%s", err, out, stderr)
		}
		t.Logf("caddy ark store status:\n%s", out)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		byServer := map[string]string{}
		for _, l := range lines[1:] {
			if f := strings.Fields(l); len(f) > 0 {
				byServer[f[0]] = strings.Join(f[1:], " ")
			}
		}
		return byServer, lines[len(lines)-1]
	}
	expect := func(lines map[string]string, server string, want *regexp.Regexp) {
		t.Helper()
		if !want.MatchString(lines[server]) {
			t.Errorf("%s: %q, want %s", server, lines[server], want)
		}
	}

	for _, args := range [][]string{{}, {"--store", "/var/lib/caddy/ark.db"}, {"--store", dsn, "--timeout", "0s"}} {
		if _, _, err := caddytest.RunArkCommand(t, "", append([]string{"store", "status"}, args...)...); err == nil {
			t.Errorf("store status %q: no error", args)
		}
	}
	lines, last := status("")
	expect(lines, primary, regexp.MustCompile(`^primary - - seq 1$`))
	expect(lines, standby, regexp.MustCompile(`^standby 0\.000s yes seq 1$`))
	if last != "writes: the primary answers" {
		t.Errorf("last line %q", last)
	}

	r.KillPrimary(t)
	lines, last = status("")
	expect(lines, primary, regexp.MustCompile(`^down: .*refused`))
	expect(lines, standby, regexp.MustCompile(`^standby [0-9.]+s no seq 1$`))
	if !strings.HasPrefix(last, "writes: no server answered as the primary") {
		t.Errorf("last line %q", last)
	}

	r.Promote(t)
	lines, last = status("")
	expect(lines, standby, regexp.MustCompile(`^primary - - seq 1$`))
	if last != "writes: the primary answers" {
		t.Errorf("last line %q", last)
	}

	if err := r.Standby.Kill(); err != nil {
		t.Fatal(err)
	}
	lines, _ = status("no server answered")
	expect(lines, standby, regexp.MustCompile(`^down: `))
}
