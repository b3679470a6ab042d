package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// lockHistory takes, within tx, the lock that orders the history, and
// with notify also queues the NOTIFY of tx's changes. Every transaction
// that adds history records calls it just before it adds them, after
// every other lock it takes.
//
// A record's seq comes from a sequence when it is inserted, not when its
// transaction commits: without the lock, a transaction could take seq
// 101, another 102 and commit first, and a reader of GET changes that
// went on from 102 would never see 101. The lock is a transaction-level
// advisory lock, one per schema, held until commit (or rollback): the
// records of two transactions never interleave, and one is visible
// before the next takes a seq, so a reader that sees a record sees every
// record with a lower seq that will ever be committed. It costs little:
// PostgreSQL already makes the commits of notifying transactions wait
// for each other (async.c holds a lock from just before a commit until
// after it), and this lock adds to that wait only the time of the
// insert. An import holds it while it inserts, when it also keeps every
// other writer out of the bindings.
func (b *Backend) lockHistory(ctx context.Context, tx pgx.Tx, notify bool) error {
	if notify {
		_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0)), pg_notify($2, '')", historyLockName+b.schema, b.watch.channel(b.schema))
		return err
	}
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", historyLockName+b.schema)
	return err
}

// historyLockName, followed by the schema, names the advisory lock that
// orders a schema's history.
const historyLockName = "caddy-ark history "
