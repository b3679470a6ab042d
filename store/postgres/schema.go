package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pgMigrations build the store's tables: migration i takes the schema from
// version i to i+1. Released migrations never change; new ones are
// appended. "@." stands for the schema.
//
// Keys are compared byte by byte (COLLATE "C"), as in the tables. Every
// history record carries its transaction's id, so that a node reading the
// change sequence can come back for the records of transactions that
// were still running when it read (see pgWatch).
//
// Version 2 adds the resolution statistics (stats.go): counts per day and
// shoulder and outcome, and the day's lists of names ("top",
// "not_found").
//
// Version 3 adds the target checks (store.TargetChecks): a target's row is
// keyed by the SHA-256 of the target, since a B-tree cannot index the
// longest targets; a sequence numbers the sweeps, and one row holds the
// lease of the node that checks.
var pgMigrations = []string{`
CREATE TABLE @.bindings (
	key         text COLLATE "C" PRIMARY KEY,
	target      text NOT NULL DEFAULT '',
	status      integer NOT NULL DEFAULT 0,
	passthrough boolean NOT NULL DEFAULT false,
	meta        jsonb,
	reason      text NOT NULL DEFAULT '',
	version     bigint NOT NULL,
	updated     timestamptz NOT NULL,
	by          text NOT NULL DEFAULT ''
);
CREATE TABLE @.history (
	seq  bigserial PRIMARY KEY,
	xid  xid8 NOT NULL DEFAULT pg_current_xact_id(),
	time timestamptz NOT NULL,
	key  text COLLATE "C" NOT NULL,
	by   text NOT NULL DEFAULT '',
	old  jsonb,
	new  jsonb
);
CREATE INDEX ON @.history (key, seq);
CREATE INDEX ON @.history (xid);
CREATE TABLE @.counters (
	name  text COLLATE "C" PRIMARY KEY,
	value bigint NOT NULL
);
`, `
CREATE TABLE @.stats_resolutions (
	day      date NOT NULL,
	shoulder text COLLATE "C" NOT NULL,
	outcome  text COLLATE "C" NOT NULL,
	count    bigint NOT NULL,
	PRIMARY KEY (day, shoulder, outcome)
);
CREATE TABLE @.stats_names (
	list  text COLLATE "C" NOT NULL,
	day   date NOT NULL,
	id    text COLLATE "C" NOT NULL,
	count bigint NOT NULL,
	PRIMARY KEY (list, day, id)
);
`, `
CREATE TABLE @.targets (
	id       bytea PRIMARY KEY,
	target   text NOT NULL,
	key      text NOT NULL DEFAULT '',
	paused   boolean NOT NULL DEFAULT false,
	sweep    bigint NOT NULL,
	state    text NOT NULL,
	code     text NOT NULL DEFAULT '',
	failures integer NOT NULL DEFAULT 0,
	checked  timestamptz NOT NULL,
	since    timestamptz NOT NULL,
	final    text NOT NULL DEFAULT '',
	page     text NOT NULL DEFAULT '',
	notified boolean NOT NULL DEFAULT false,
	due      timestamptz NOT NULL
);
CREATE INDEX ON @.targets (due) WHERE NOT paused;
CREATE INDEX ON @.targets USING hash (final) WHERE final <> '';
CREATE SEQUENCE @.target_sweeps;
CREATE TABLE @.target_lease (
	id      boolean PRIMARY KEY DEFAULT true CHECK (id),
	holder  text NOT NULL,
	expires timestamptz NOT NULL
);
`,
	// 4: listing (GET ids). The keys of each state, in key order, and
	// the text that q looks in, trigram-indexed when the pg_trgm
	// extension can be created (Debian's postgresql has it; the role
	// needs CREATE on the database, or the extension there already).
	// Without it q reads the bindings of its range in key order.
	`
CREATE INDEX bindings_minted ON @.bindings (key) WHERE status = 0;
CREATE INDEX bindings_withdrawn ON @.bindings (key) WHERE status = 410;
CREATE INDEX bindings_bound ON @.bindings (key) WHERE status <> 0 AND status <> 410;
CREATE FUNCTION @.binding_text(target text, meta jsonb) RETURNS text
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	AS $$ SELECT target || coalesce(E'\n' || (SELECT string_agg(value, E'\n') FROM jsonb_each_text(meta)), '') $$;
DO $do$
DECLARE
	trgm name;
BEGIN
	BEGIN
		CREATE EXTENSION IF NOT EXISTS pg_trgm;
	EXCEPTION WHEN OTHERS THEN
		RAISE NOTICE 'caddy-ark: pg_trgm not available (%), GET ids?q= reads bindings in key order', SQLERRM;
	END;
	SELECT n.nspname INTO trgm FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
	IF trgm IS NOT NULL THEN
		EXECUTE format('CREATE INDEX bindings_text ON @.bindings USING gin (@.binding_text(target, meta) %I.gin_trgm_ops)', trgm);
	END IF;
END
$do$;
`,
	// 5: batches (a retarget through the API, and its undo), and the
	// feed of changes from a time (GET changes).
	`
ALTER TABLE @.history ADD COLUMN batch bigint;
CREATE INDEX history_batch ON @.history (batch, seq) WHERE batch IS NOT NULL;
CREATE INDEX history_time ON @.history (time);
`,
	// 6: the text that q looks in, indexed as target and metadata
	// written out (jsonb's text), which costs a row far less to compute
	// than binding_text() of migration 4, whose index it replaces.
	`
DROP INDEX IF EXISTS @.bindings_text;
DROP FUNCTION @.binding_text(text, jsonb);
DO $do$
DECLARE
	trgm name;
BEGIN
	BEGIN
		CREATE EXTENSION IF NOT EXISTS pg_trgm;
	EXCEPTION WHEN OTHERS THEN
		RAISE NOTICE 'caddy-ark: pg_trgm not available (%), GET ids?q= reads bindings in key order', SQLERRM;
	END;
	SELECT n.nspname INTO trgm FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
	IF trgm IS NOT NULL THEN
		EXECUTE format('CREATE INDEX bindings_text ON @.bindings USING gin ((target || '' '' || coalesce(meta::text, '''')) %I.gin_trgm_ops)', trgm);
	END IF;
END
$do$;
`,
	// 7: API keys made at runtime (store.KeyStore), found by the hash of
	// their secret with each request.
	`
CREATE TABLE @.api_keys (
	hash text COLLATE "C" PRIMARY KEY,
	name text COLLATE "C" NOT NULL UNIQUE,
	scopes text[] NOT NULL,
	label text NOT NULL DEFAULT '',
	expires timestamptz,
	created timestamptz NOT NULL,
	created_by text NOT NULL
);
`}

// pgSQL replaces "@." in query with the quoted schema name and a dot.
func pgSQL(schema, query string) string {
	return strings.ReplaceAll(query, "@.", pgx.Identifier{schema}.Sanitize()+".")
}

// migrate creates the schema or brings it to the newest version, in one
// transaction under an advisory lock, so that nodes starting together
// migrate once, one after the other. A schema newer than this code is
// refused. A schema already at this code's version is left alone, without
// a statement that needs more than reading it: a node may then run as a
// role that may only read and write the store's tables.
func (b *Backend) migrate(ctx context.Context) error {
	var version int
	err := b.pool.QueryRow(ctx, pgSQL(b.schema, "SELECT version FROM @.schema_version")).Scan(&version)
	var pgErr *pgconn.PgError
	switch {
	case err == nil && version == len(pgMigrations):
		return nil
	case err == nil && version > len(pgMigrations):
		return newerSchema(b.schema, version)
	case err != nil && !errors.Is(err, pgx.ErrNoRows) && !(errors.As(err, &pgErr) && (pgErr.Code == "42P01" || pgErr.Code == "3F000")):
		return err // not "no such table" or "no such schema": the server, or the role, cannot read it
	}
	tx, err := b.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, "SET LOCAL lock_timeout = 0"); err != nil { // ctx bounds the wait for another node's migration
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended('caddy-ark migrate ' || $1, 0))", b.schema); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{b.schema}.Sanitize()); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, pgSQL(b.schema, "CREATE TABLE IF NOT EXISTS @.schema_version (version integer NOT NULL)")); err != nil {
		return err
	}
	version = 0
	err = tx.QueryRow(ctx, pgSQL(b.schema, "SELECT version FROM @.schema_version")).Scan(&version)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		if _, err := tx.Exec(ctx, pgSQL(b.schema, "INSERT INTO @.schema_version VALUES (0)")); err != nil {
			return err
		}
	case err != nil:
		return err
	}
	if version > len(pgMigrations) {
		return newerSchema(b.schema, version)
	}
	for v := version; v < len(pgMigrations); v++ {
		if _, err := tx.Exec(ctx, pgSQL(b.schema, pgMigrations[v])); err != nil {
			if pgNotReachable(err) {
				return err // the server went away or ran out of time: waiting may cure it
			}
			return fmt.Errorf("%w: migrating schema %s to version %d: %v", errSchema, b.schema, v+1, err)
		}
	}
	if _, err := tx.Exec(ctx, pgSQL(b.schema, "UPDATE @.schema_version SET version = $1"), len(pgMigrations)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// newerSchema refuses a schema at version, newer than this code knows.
func newerSchema(schema string, version int) error {
	return fmt.Errorf("%w: schema %s is at version %d, newer than this caddy-ark knows (%d): run a newer caddy-ark",
		errSchema, schema, version, len(pgMigrations))
}

// errSchema marks migration failures that waiting will not cure.
var errSchema = errors.New("postgres store")

// pgNotReachable tells the errors of an unreachable or overloaded server
// (or of an operation that ran out of time) from those of a statement the
// server refused: the former make ErrUnavailable.
func pgNotReachable(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return true
	}
	switch pgErr.Code[:2] {
	case "08", // connection exception
		"53", // insufficient resources
		"57": // operator intervention: shutdown, cannot connect now, canceled
		return true
	}
	return pgErr.Code == "40001" || pgErr.Code == "40P01" // serialization failure, deadlock
}
