package testkit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Replicated is a primary and a synchronous hot standby for tests of
// failover: two throwaway clusters on loopback ports of their own, the
// standby made from the primary with `pg_basebackup -R` and streaming
// from it. The primary waits for the standby to apply each commit
// (synchronous_standby_names '*', synchronous_commit remote_apply), so a
// change the primary committed can be read on the standby at once. Tests
// run as root start both as an unprivileged user, as StartPostgres does.
type Replicated struct {
	// Primary is the server that takes writes until KillPrimary.
	Primary *Cluster
	// Standby is the hot standby: read only until Promote.
	Standby *Cluster
}

// StartReplicated starts a primary and a synchronous hot standby of its
// own, which are stopped and removed when the test ends. It returns once
// the standby streams from the primary as its synchronous standby.
func StartReplicated(t testing.TB) *Replicated {
	t.Helper()
	bin := NeedPostgres(t)
	primary, err := newPGCluster(bin, "synchronous_standby_names='*'", "synchronous_commit=remote_apply", "wal_level=replica")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(primary.remove)
	// Not synchronous itself: once promoted it has no standby to wait for.
	standby, err := newPGDir(bin, "hot_standby=on", "wal_receiver_status_interval=1s")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(standby.remove)
	if out, err := standby.run("pg_basebackup", "-h", "127.0.0.1", "-p", fmt.Sprint(primary.Port), "-U", "ark",
		"-D", standby.data(), "-R", "-X", "stream", "--checkpoint=fast", "--no-sync"); err != nil {
		t.Fatalf("pg_basebackup: %v\n%s", err, out)
	}
	if err := standby.Start(); err != nil {
		t.Fatal(err)
	}
	r := &Replicated{Primary: primary, Standby: standby}
	ctx := context.Background()
	deadline := time.Now().Add(time.Minute)
	for {
		var state string
		err := queryOne(ctx, primary.dsn("postgres"), "SELECT coalesce(max(sync_state), '') FROM pg_stat_replication", &state)
		if err == nil && state == "sync" {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("the standby did not become the primary's synchronous standby within a minute: sync_state %q, %v", state, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// queryOne runs query on a connection of its own and scans its one row.
func queryOne(ctx context.Context, dsn, query string, dest ...any) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return conn.QueryRow(ctx, query).Scan(dest...)
}

// CreateDB creates an empty database on the primary, which the standby
// replays, and returns its name.
func (r *Replicated) CreateDB(t testing.TB) string {
	t.Helper()
	return r.Primary.createDatabase(t)
}

// DSN is a connection string of database db that names both servers,
// the primary first, with target_session_attrs attrs (read-write,
// read-only, primary, standby, prefer-standby or any).
func (r *Replicated) DSN(db, attrs string) string {
	return fmt.Sprintf("host=127.0.0.1,127.0.0.1 port=%d,%d user=ark dbname=%s sslmode=disable target_session_attrs=%s",
		r.Primary.Port, r.Standby.Port, db, attrs)
}

// KillPrimary kills the primary's processes with SIGKILL, the postmaster
// first, as a machine that lost its power stops: no shutdown, no
// goodbye to the clients or the standby. It returns once they are gone.
func (r *Replicated) KillPrimary(t testing.TB) {
	t.Helper()
	if err := r.Primary.Kill(); err != nil {
		t.Fatal(err)
	}
}

// Promote makes the standby the primary with `pg_ctl promote`, and
// returns once it takes writes.
func (r *Replicated) Promote(t testing.TB) {
	t.Helper()
	if out, err := r.Standby.run("pg_ctl", "-D", r.Standby.data(), "-w", "-t", "60", "promote"); err != nil {
		t.Fatalf("pg_ctl promote: %v\n%s", err, out)
	}
}

// Kill kills the server's processes (the postmaster, then its children:
// the PIDs this cluster started, read from postmaster.pid and /proc)
// with SIGKILL, and waits until they are gone. The cluster's files stay
// as the crash left them, to be removed when the test ends.
func (c *Cluster) Kill() error {
	pids, err := c.pids()
	if err != nil {
		return err
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
			return fmt.Errorf("SIGKILL %d: %v", pid, err)
		}
	}
	deadline := time.Now().Add(time.Minute)
	for _, pid := range pids {
		for processAlive(pid) {
			if time.Now().After(deadline) {
				return fmt.Errorf("process %d still there a minute after SIGKILL", pid)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	// So that removing the cluster does not ask pg_ctl to stop a server
	// that is gone.
	return os.Remove(filepath.Join(c.data(), "postmaster.pid"))
}

// processAlive reports whether pid runs and is not a zombie.
func processAlive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || !strings.HasPrefix(string(stat[i+1:]), " Z")
}
