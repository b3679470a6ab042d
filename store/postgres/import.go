package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"
)

// Import copies the bindings into a temporary table with COPY, finds the
// first one (in input order) that is bound differently, in the store or
// earlier in the input, and otherwise adds the new ones with their history
// records, all in one transaction. It holds a lock that keeps other
// writers out (lookups go on) while it checks and adds. It is not bounded
// by the store's timeout, but stops, rolling back, when ctx is done or the
// store closes.
func (b *Backend) Import(ctx context.Context, next func() (*store.Binding, error), by string) (int, error) {
	if err := b.pool.allow(); err != nil {
		return 0, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(b.closing, cancel)()
	if err := b.ready(ctx); err != nil {
		return 0, err
	}
	now := pgNow()
	var (
		added int64
		keys  []string // the keys added, up to pgWatchMax+1
	)
	err := pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE ark_import (
			idx bigint, key text COLLATE "C", target text, status integer, passthrough boolean, meta jsonb, reason text
		) ON COMMIT DROP`); err != nil {
			return err
		}
		src := &importSource{next: next}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"ark_import"},
			[]string{"idx", "key", "target", "status", "passthrough", "meta", "reason"}, src); err != nil {
			if src.err != nil {
				return &importInputError{src.err}
			}
			return err
		}
		if err := b.lockBindings(ctx, tx); err != nil {
			return err
		}
		if err := b.importConflict(ctx, tx); err != nil {
			return err
		}
		if err := b.lockHistory(ctx, tx); err != nil {
			return err
		}
		err := tx.QueryRow(ctx, pgSQL(b.schema, `WITH added AS (
			INSERT INTO @.bindings (`+pgColumns+`)
			SELECT DISTINCT ON (i.key) i.key, i.target, i.status, i.passthrough, i.meta, i.reason, 1, $1, $2
			FROM ark_import i WHERE NOT EXISTS (SELECT FROM @.bindings b WHERE b.key = i.key)
			ORDER BY i.key, i.idx
			RETURNING *),
		h AS (INSERT INTO @.history (time, key, by, new)
		SELECT $1, key, $2, jsonb_strip_nulls(jsonb_build_object('id', key, 'target', nullif(target, ''), 'status', nullif(status, 0),
			'passthrough', passthrough, 'meta', meta, 'reason', nullif(reason, ''), 'version', version, 'updated', updated, 'by', nullif(by, '')))
		FROM added RETURNING key)
		SELECT (SELECT count(*) FROM h), ARRAY(SELECT key FROM h LIMIT $3)`), now, by, pgWatchMax+1).Scan(&added, &keys)
		if err != nil {
			return err
		}
		if added > 0 {
			_, err = tx.Exec(ctx, "SELECT pg_notify($1, '')", b.watch.channel(b.schema))
		}
		return err
	})
	var input *importInputError
	if errors.As(err, &input) {
		return 0, input.err
	}
	if err := b.pool.result(ctx, err); err != nil {
		return 0, err
	}
	switch {
	case len(keys) > pgWatchMax:
		b.watch.local(nil)
	case len(keys) > 0:
		b.watch.local(keys)
	}
	if added >= pgAnalyzeAfter {
		b.analyze(ctx)
	}
	return int(added), nil
}

// pgAnalyzeAfter is the fewest bindings an import adds for it to analyze
// the bindings table when it commits.
const pgAnalyzeAfter = 10000

// analyze refreshes the planner's statistics of the bindings table, as
// PostgreSQL advises after a bulk load, rather than leave them to
// autovacuum's next round: SizeHint reads them. The import is committed
// already, so it waits at most the store's timeout (behind a vacuum of
// the table, for one) and a failure is only logged; for a role that does
// not own the table the server skips it with a warning of its own.
func (b *Backend) analyze(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	if _, err := b.pool.Exec(ctx, pgSQL(b.schema, "ANALYZE @.bindings")); err != nil {
		b.logger.Warn("the import is committed, but analyzing the bindings table failed", zap.Error(err))
	}
}

// importConflict returns an *ImportError for the first binding of
// ark_import that is bound differently in the store or earlier in the
// input, or nil.
func (b *Backend) importConflict(ctx context.Context, tx pgx.Tx) error {
	var (
		idx int64
		key string
	)
	err := tx.QueryRow(ctx, pgSQL(b.schema, `SELECT idx, key FROM (
		SELECT i.idx, i.key FROM ark_import i JOIN @.bindings b ON b.key = i.key
		WHERE (b.target, b.status, b.passthrough, b.meta, b.reason) IS DISTINCT FROM (i.target, i.status, i.passthrough, i.meta, i.reason)
		UNION ALL
		SELECT idx, key FROM (
			SELECT idx, key, (target, status, passthrough, meta, reason) IS DISTINCT FROM
				first_value((target, status, passthrough, meta, reason)) OVER (PARTITION BY key ORDER BY idx) AS differs
			FROM ark_import) d
		WHERE differs
	) c ORDER BY idx LIMIT 1`)).Scan(&idx, &key)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	return &importInputError{&store.ImportError{Index: int(idx), Key: key, Err: store.ErrConflict}}
}

// importInputError is an Import refused for its input, returned as err.
type importInputError struct{ err error }

func (e *importInputError) Error() string { return e.err.Error() }

// importSource feeds COPY from an Import's next.
type importSource struct {
	next func() (*store.Binding, error)
	idx  int64
	row  []any
	err  error // next's error, io.EOF excepted
}

func (s *importSource) Next() bool {
	bd, err := s.next()
	if err != nil {
		if !errors.Is(err, io.EOF) {
			s.err = err
		}
		return false
	}
	if bd == nil {
		s.err = fmt.Errorf("binding %d: nil", s.idx)
		return false
	}
	s.row = []any{s.idx, bd.Key, bd.Target, int32(bd.Status), bd.Passthrough, pgMeta(bd.Meta), bd.Reason}
	s.idx++
	return true
}

func (s *importSource) Values() ([]any, error) { return s.row, nil }

func (s *importSource) Err() error { return s.err }

// importLockTry is how long an import waits in the queue for its lock on
// the bindings at each try, and importLockPause how long between tries.
const (
	importLockTry   = 100 * time.Millisecond
	importLockPause = 50 * time.Millisecond
)

// lockBindings takes the lock that keeps other writers out of the
// bindings while an import checks and adds them, waiting its turn behind
// another import, or a retarget's transaction, however long. It does not
// wait in PostgreSQL's queue for that long: a lock waiting there makes
// every writer that comes after it wait too (they would give up after
// lock_timeout, see pgPoolConfig), for as long as a retarget runs. So it
// tries for importLockTry at a time, in a savepoint, and leaves the queue
// between tries.
func (b *Backend) lockBindings(ctx context.Context, tx pgx.Tx) error {
	try := fmt.Sprintf("SET LOCAL lock_timeout = %d; LOCK TABLE @.bindings IN SHARE ROW EXCLUSIVE MODE", importLockTry.Milliseconds())
	for {
		err := pgx.BeginFunc(ctx, tx, func(sp pgx.Tx) error {
			_, err := sp.Exec(ctx, pgSQL(b.schema, try))
			return err
		})
		if err == nil {
			// What follows waits for the history's lock however long.
			_, err = tx.Exec(ctx, "SET LOCAL lock_timeout = 0")
			return err
		}
		if !pgLockTimeout(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(importLockPause):
		}
	}
}
