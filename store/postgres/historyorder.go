package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// The history's order. A record's seq comes from a sequence when it is
// inserted, not when its transaction commits: without more, a
// transaction could take seq 101, another 102 and commit first, and a
// reader of GET changes that went on from 102 would never see 101. So
// every transaction that adds history records takes a lock just before
// it numbers them, after every other lock it takes: a transaction-level
// advisory lock, one per schema, held until it commits (or rolls back).
// The records of two transactions never interleave, and one's are
// visible before the next takes a seq: a reader that sees a record sees
// every record with a lower seq that will ever be committed.
//
// It costs little: PostgreSQL already makes the commits of notifying
// transactions wait for each other (async.c holds a lock from just before
// a commit until after it), and the lock adds to that wait the insert
// and one round trip, the commit's. An import holds it while it inserts,
// when it also keeps every other writer out of the bindings.

// historyLockName, followed by the schema, names the advisory lock that
// orders a schema's history.
const historyLockName = "caddy-ark history "

// orderedHistory begins an INSERT INTO history ... SELECT whose FROM
// starts with "ordered, ": a CTE that takes the history's lock and
// queues the NOTIFY of the transaction's changes, before any row, and
// so any seq, is made. Its parameters are $n (the lock's name) and $n+1
// (the channel): their values are orderedArgs.
func orderedHistory(n int) string {
	return fmt.Sprintf("WITH ordered AS MATERIALIZED (SELECT pg_advisory_xact_lock(hashtextextended($%d, 0)), pg_notify($%d, '')) ", n, n+1)
}

// orderedArgs are the values of orderedHistory's parameters.
func (b *Backend) orderedArgs() []any {
	return []any{historyLockName + b.schema, b.watch.channel(b.schema)}
}

// lockHistory takes the history's lock within tx, for a transaction that
// numbers its records in a statement of its own making.
func (b *Backend) lockHistory(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", historyLockName+b.schema)
	return err
}
