package postgres

import (
	"context"
	"crypto/sha256"
	"errors"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/jackc/pgx/v5"
)

// targetColumns are the columns of a target check, in the order scanTarget
// reads.
const targetColumns = "target, key, paused, state, code, failures, checked, since, final, page, notified, due"

// targetID is a target's row key: its SHA-256.
func targetID(target string) []byte {
	sum := sha256.Sum256([]byte(target))
	return sum[:]
}

// scanTarget reads one row of targetColumns.
func scanTarget(row pgx.Row) (*store.TargetCheck, error) {
	var c store.TargetCheck
	var state string
	if err := row.Scan(&c.Target, &c.Key, &c.Paused, &state, &c.Code, &c.Failures, &c.Checked, &c.Since, &c.Final, &c.Page, &c.Notified, &c.Due); err != nil {
		return nil, err
	}
	c.State = store.TargetState(state)
	c.Checked, c.Since, c.Due = pgTime(c.Checked), pgTime(c.Since), c.Due.UTC()
	return &c, nil
}

// pgTime is t in UTC, and the zero time as Go spells it.
func pgTime(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC()
}

// BeginTargetSweep implements store.TargetChecks.
func (b *Backend) BeginTargetSweep(ctx context.Context) (uint64, error) {
	octx, cancel, err := b.pool.op(ctx)
	if err != nil {
		return 0, err
	}
	defer cancel()
	var sweep int64
	err = b.pool.QueryRow(octx, pgSQL(b.schema, "SELECT nextval('@.target_sweeps')")).Scan(&sweep)
	return uint64(sweep), b.pool.result(octx, err)
}

// MarkTargets implements store.TargetChecks in one statement, which
// writes only the rows it changes. A target named twice in refs is merged
// first: one statement may not change a row twice.
func (b *Backend) MarkTargets(ctx context.Context, sweep uint64, refs []store.TargetRef) error {
	merged := make(map[string]int, len(refs))
	var (
		ids     [][]byte
		targets []string
		keys    []string
		paused  []bool
		dues    []time.Time
	)
	for _, ref := range refs {
		if i, ok := merged[ref.Target]; ok {
			paused[i] = paused[i] && ref.Paused
			continue
		}
		merged[ref.Target] = len(ids)
		ids, targets, keys = append(ids, targetID(ref.Target)), append(targets, ref.Target), append(keys, ref.Key)
		paused, dues = append(paused, ref.Paused), append(dues, ref.Due.UTC())
	}
	octx, cancel, err := b.pool.op(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	_, err = b.pool.Exec(octx, pgSQL(b.schema, `INSERT INTO @.targets AS t (id, target, key, paused, sweep, state, checked, since, due)
		SELECT i, g, k, p, $5, 'unchecked', '0001-01-01Z', '0001-01-01Z', d FROM unnest($1::bytea[], $2::text[], $3::text[], $4::bool[], $6::timestamptz[]) AS u(i, g, k, p, d)
		ON CONFLICT (id) DO UPDATE SET key = CASE WHEN t.sweep < excluded.sweep THEN excluded.key ELSE t.key END,
			paused = CASE WHEN t.sweep < excluded.sweep THEN excluded.paused ELSE false END,
			sweep = greatest(t.sweep, excluded.sweep)
		WHERE t.sweep < excluded.sweep OR t.paused AND NOT excluded.paused`),
		ids, targets, keys, paused, int64(sweep), dues)
	return b.pool.result(octx, err)
}

// EndTargetSweep implements store.TargetChecks. Finding the targets of
// older sweeps reads every row, so it is not bounded by the store's
// timeout.
func (b *Backend) EndTargetSweep(ctx context.Context, sweep uint64) (int, error) {
	if err := b.pool.allow(); err != nil {
		return 0, err
	}
	if err := b.ready(ctx); err != nil {
		return 0, err
	}
	tag, err := b.pool.Exec(ctx, pgSQL(b.schema, "DELETE FROM @.targets WHERE sweep < $1"), int64(sweep))
	if err := b.pool.result(ctx, err); err != nil {
		return 0, err
	}
	return int(tag.RowsAffected()), nil
}

// DueTargets implements store.TargetChecks.
func (b *Backend) DueTargets(ctx context.Context, now time.Time, n int) ([]*store.TargetCheck, error) {
	octx, cancel, err := b.pool.op(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	rows, err := b.pool.Query(octx, pgSQL(b.schema, "SELECT "+targetColumns+" FROM @.targets WHERE NOT paused AND due <= $1 ORDER BY due LIMIT $2"), now, n)
	if err != nil {
		return nil, b.pool.result(octx, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*store.TargetCheck, error) { return scanTarget(row) })
	return out, b.pool.result(octx, err)
}

// PutTargetChecks implements store.TargetChecks in one statement.
func (b *Backend) PutTargetChecks(ctx context.Context, checks []*store.TargetCheck) error {
	var (
		ids                        [][]byte
		states, codes, finals, pgs []string
		failures                   []int32
		checked, since, dues       []time.Time
		notified                   []bool
	)
	for _, c := range checks {
		ids, states, codes = append(ids, targetID(c.Target)), append(states, string(c.State)), append(codes, c.Code)
		finals, pgs, failures = append(finals, c.Final), append(pgs, c.Page), append(failures, int32(c.Failures))
		checked, since, dues = append(checked, c.Checked.UTC()), append(since, c.Since.UTC()), append(dues, c.Due.UTC())
		notified = append(notified, c.Notified)
	}
	octx, cancel, err := b.pool.op(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	_, err = b.pool.Exec(octx, pgSQL(b.schema, `UPDATE @.targets AS t SET state = u.s, code = u.c, failures = u.f, checked = u.ck, since = u.sn,
			final = u.fi, page = u.pg, notified = u.n OR t.notified AND t.state = u.s AND t.since = u.sn, due = u.d
		FROM unnest($1::bytea[], $2::text[], $3::text[], $4::int[], $5::timestamptz[], $6::timestamptz[], $7::text[], $8::text[], $9::bool[], $10::timestamptz[])
			AS u(i, s, c, f, ck, sn, fi, pg, n, d)
		WHERE t.id = u.i`),
		ids, states, codes, failures, checked, since, finals, pgs, notified, dues)
	return b.pool.result(octx, err)
}

// SetTargetsDue implements store.TargetChecks in one statement.
func (b *Backend) SetTargetsDue(ctx context.Context, refs []store.TargetRef) error {
	ids, dues := make([][]byte, len(refs)), make([]time.Time, len(refs))
	for i, ref := range refs {
		ids[i], dues[i] = targetID(ref.Target), ref.Due.UTC()
	}
	octx, cancel, err := b.pool.op(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	_, err = b.pool.Exec(octx, pgSQL(b.schema, `UPDATE @.targets AS t SET due = u.d
		FROM unnest($1::bytea[], $2::timestamptz[]) AS u(i, d) WHERE t.id = u.i`), ids, dues)
	return b.pool.result(octx, err)
}

// LookupTargetChecks implements store.TargetChecks in one query.
func (b *Backend) LookupTargetChecks(ctx context.Context, targets []string) ([]*store.TargetCheck, error) {
	ids := make([][]byte, len(targets))
	for i, t := range targets {
		ids[i] = targetID(t)
	}
	octx, cancel, err := b.pool.op(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	rows, err := b.pool.Query(octx, pgSQL(b.schema, "SELECT "+targetColumns+" FROM @.targets WHERE id = ANY($1)"), ids)
	if err != nil {
		return nil, b.pool.result(octx, err)
	}
	found, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*store.TargetCheck, error) { return scanTarget(row) })
	if err := b.pool.result(octx, err); err != nil {
		return nil, err
	}
	byTarget := make(map[string]*store.TargetCheck, len(found))
	for _, c := range found {
		byTarget[c.Target] = c
	}
	out := make([]*store.TargetCheck, len(targets))
	for i, t := range targets {
		out[i] = byTarget[t]
	}
	return out, nil
}

// EachTargetCheck implements store.TargetChecks, a batch at a time, as
// Each does; the order is that of the rows' keys. It is not bounded by
// the store's timeout.
func (b *Backend) EachTargetCheck(ctx context.Context, fn func(*store.TargetCheck) error) error {
	if err := b.pool.allow(); err != nil {
		return err
	}
	if err := b.ready(ctx); err != nil {
		return err
	}
	for after := []byte{}; ; {
		rows, err := b.pool.Query(ctx, pgSQL(b.schema, "SELECT "+targetColumns+" FROM @.targets WHERE id > $1 ORDER BY id LIMIT $2"),
			after, store.EachBatchCount)
		if err != nil {
			return b.pool.result(ctx, err)
		}
		batch, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*store.TargetCheck, error) { return scanTarget(row) })
		if err != nil {
			return b.pool.result(ctx, err)
		}
		b.pool.setUp(true, nil)
		for _, c := range batch {
			if err := fn(c); err != nil {
				return err
			}
		}
		if len(batch) < store.EachBatchCount {
			return nil
		}
		after = targetID(batch[len(batch)-1].Target)
	}
}

// SharedFinal implements store.TargetChecks.
func (b *Backend) SharedFinal(ctx context.Context, final, target string, limit int) (int, error) {
	octx, cancel, err := b.pool.op(ctx)
	if err != nil {
		return 0, err
	}
	defer cancel()
	var n int
	err = b.pool.QueryRow(octx, pgSQL(b.schema, `SELECT count(*) FROM (SELECT FROM @.targets WHERE final = $1 AND final <> '' AND target <> $2 LIMIT $3) s`),
		final, target, limit).Scan(&n)
	return n, b.pool.result(octx, err)
}

// TargetStates implements store.TargetChecks.
func (b *Backend) TargetStates(ctx context.Context) (map[store.TargetState]int, error) {
	octx, cancel, err := b.pool.op(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	rows, err := b.pool.Query(octx, pgSQL(b.schema, "SELECT state, count(*) FROM @.targets GROUP BY state"))
	if err != nil {
		return nil, b.pool.result(octx, err)
	}
	out := map[store.TargetState]int{}
	var state string
	var n int
	_, err = pgx.ForEachRow(rows, []any{&state, &n}, func() error {
		out[store.TargetState(state)] = n
		return nil
	})
	return out, b.pool.result(octx, err)
}

// LeaseTargets implements store.TargetChecks with one row, timed by the
// server's clock, so that the nodes' clocks need not agree.
func (b *Backend) LeaseTargets(ctx context.Context, holder string, ttl time.Duration) (bool, error) {
	octx, cancel, err := b.pool.op(ctx)
	if err != nil {
		return false, err
	}
	defer cancel()
	var held bool
	err = b.pool.QueryRow(octx, pgSQL(b.schema, `INSERT INTO @.target_lease AS l (holder, expires) VALUES ($1, now() + make_interval(secs => $2))
		ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, expires = excluded.expires
		WHERE l.holder = excluded.holder OR l.expires < now()
		RETURNING true`), holder, ttl.Seconds()).Scan(&held)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, b.pool.result(octx, nil)
	}
	return held, b.pool.result(octx, err)
}

// ReleaseTargets implements store.TargetChecks.
func (b *Backend) ReleaseTargets(ctx context.Context, holder string) error {
	octx, cancel, err := b.pool.op(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	_, err = b.pool.Exec(octx, pgSQL(b.schema, "DELETE FROM @.target_lease WHERE holder = $1"), holder)
	return b.pool.result(octx, err)
}

// The store.TargetChecks methods of the module: each hands the call to
// the shared backend.

// Interface guards.
var (
	_ store.TargetChecks = (*Store)(nil)
	_ store.TargetChecks = (*Backend)(nil)
)

// Shared implements store.Shared: the backend, shared by every module of
// the same settings.
func (s *Store) Shared() store.Store { return s.backend }

// Hold implements store.Shared: one more user of the backend.
func (s *Store) Hold() (store.Store, func() error) {
	key := s.key
	v, _, _ := pgBackends.LoadOrNew(key, nil) // s uses it: it is there
	return v.(*Backend), store.ReleaseOnce(func() error {
		_, err := pgBackends.Delete(key)
		return err
	})
}

// Interface guards.
var (
	_ store.Shared = (*Store)(nil)
	_ store.Store  = (*Backend)(nil)
)
