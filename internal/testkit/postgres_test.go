package testkit

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestPGCluster checks the helper itself: a started cluster answers over
// TCP and the Unix socket, and is gone after remove.
func TestPGCluster(t *testing.T) {
	c, err := newPGCluster(NeedPostgres(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.remove()
	ctx := context.Background()
	for _, dsn := range []string{
		c.dsn("postgres"),
		fmt.Sprintf("host=%s port=%d user=ark dbname=postgres", c.dir, c.Port),
	} {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatalf("%s: %v", dsn, err)
		}
		var one int
		if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Errorf("%s: SELECT 1 = %d, %v", dsn, one, err)
		}
		conn.Close(ctx)
	}
	c.remove()
	if _, err := os.Stat(c.dir); !os.IsNotExist(err) {
		t.Errorf("cluster dir %s still there after remove: %v", c.dir, err)
	}
	if conn, err := pgx.Connect(ctx, c.dsn("postgres")); err == nil {
		conn.Close(ctx)
		t.Error("the server still answers after remove")
	}
}
