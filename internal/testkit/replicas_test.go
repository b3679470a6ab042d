package testkit

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestReplicated checks the failover helper: what the primary commits
// is on the standby at once; the standby refuses writes; once the
// primary is killed a read-write connection to both servers finds none,
// and after Promote it finds the standby, which then takes writes.
func TestReplicated(t *testing.T) {
	r := StartReplicated(t)
	db := r.CreateDB(t)
	ctx := context.Background()
	exec := func(dsn, sql string) error {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return err
		}
		defer conn.Close(context.Background())
		_, err = conn.Exec(ctx, sql)
		return err
	}
	if err := exec(r.Primary.DSN(db), "CREATE TABLE t (v int); INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := queryOne(ctx, r.Standby.DSN(db), "SELECT count(*) FROM t", &n); err != nil || n != 1 {
		t.Fatalf("on the standby right after the primary's commit: %d rows, %v", n, err)
	}
	if err := exec(r.Standby.DSN(db), "INSERT INTO t VALUES (2)"); err == nil {
		t.Fatal("the standby took a write")
	}
	var inRecovery bool
	if err := queryOne(ctx, r.DSN(db, "standby"), "SELECT pg_is_in_recovery()", &inRecovery); err != nil || !inRecovery {
		t.Fatalf("target_session_attrs=standby: in recovery %v, %v", inRecovery, err)
	}

	r.KillPrimary(t)
	if err := exec(r.Primary.DSN(db), "SELECT 1"); err == nil {
		t.Fatal("the primary answers after KillPrimary")
	}
	if err := exec(r.DSN(db, "read-write"), "INSERT INTO t VALUES (3)"); err == nil {
		t.Fatal("a read-write server found while the standby is not promoted")
	}
	if err := queryOne(ctx, r.DSN(db, "any"), "SELECT count(*) FROM t", &n); err != nil || n != 1 {
		t.Fatalf("the standby, while the primary is down: %d rows, %v", n, err)
	}

	r.Promote(t)
	if err := exec(r.DSN(db, "read-write"), "INSERT INTO t VALUES (4)"); err != nil {
		t.Fatalf("after promote: %v", err)
	}
	if err := queryOne(ctx, r.DSN(db, "read-write"), "SELECT count(*) FROM t", &n); err != nil || n != 2 {
		t.Fatalf("after promote: %d rows, %v", n, err)
	}
}
