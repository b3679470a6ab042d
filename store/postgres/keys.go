package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pgKeyColumns are the columns of an API key, in the order scanKey reads.
const pgKeyColumns = "name, hash, scopes, label, expires, created, created_by"

// scanKey reads one row of pgKeyColumns.
func scanKey(row pgx.Row) (*store.StoredKey, error) {
	var k store.StoredKey
	var expires *time.Time
	if err := row.Scan(&k.Name, &k.Hash, &k.Scopes, &k.Label, &expires, &k.Created, &k.CreatedBy); err != nil {
		return nil, err
	}
	if expires != nil {
		k.Expires = expires.UTC()
	}
	k.Created = k.Created.UTC()
	return &k, nil
}

// pgExpires is the expires column of k: NULL for never.
func pgExpires(k *store.StoredKey) *time.Time {
	if k.Expires.IsZero() {
		return nil
	}
	return &k.Expires
}

// AddKey implements store.KeyStore.
func (b *Backend) AddKey(ctx context.Context, k store.StoredKey) error {
	octx, cancel, err := b.pool.op(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	_, err = b.pool.Exec(octx, pgSQL(b.schema, "INSERT INTO @.api_keys ("+pgKeyColumns+") VALUES ($1, $2, $3, $4, $5, $6, $7)"),
		k.Name, k.Hash, k.Scopes, k.Label, pgExpires(&k), k.Created, k.CreatedBy)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" { // unique_violation
		return fmt.Errorf("key %s: %w: a key has that name or secret", k.Name, store.ErrConflict)
	}
	return b.pool.result(octx, err)
}

// KeyByHash implements store.KeyStore.
func (b *Backend) KeyByHash(ctx context.Context, hash string) (*store.StoredKey, error) {
	octx, cancel, err := b.pool.op(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	k, err := scanKey(b.pool.QueryRow(octx, pgSQL(b.schema, "SELECT "+pgKeyColumns+" FROM @.api_keys WHERE hash = $1"), hash))
	if errors.Is(err, pgx.ErrNoRows) {
		b.pool.setUp(true, nil)
		return nil, store.ErrNotFound
	}
	if err := b.pool.result(octx, err); err != nil {
		return nil, err
	}
	return k, nil
}

// Keys implements store.KeyStore.
func (b *Backend) Keys(ctx context.Context) ([]store.StoredKey, error) {
	octx, cancel, err := b.pool.op(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	rows, err := b.pool.Query(octx, pgSQL(b.schema, "SELECT "+pgKeyColumns+" FROM @.api_keys ORDER BY name"))
	if err != nil {
		return nil, b.pool.result(octx, err)
	}
	keys, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.StoredKey, error) {
		k, err := scanKey(row)
		if err != nil {
			return store.StoredKey{}, err
		}
		return *k, nil
	})
	if err := b.pool.result(octx, err); err != nil {
		return nil, err
	}
	return keys, nil
}

// RevokeKey implements store.KeyStore.
func (b *Backend) RevokeKey(ctx context.Context, name string) error {
	octx, cancel, err := b.pool.op(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	tag, err := b.pool.Exec(octx, pgSQL(b.schema, "DELETE FROM @.api_keys WHERE name = $1"), name)
	if err := b.pool.result(octx, err); err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound
	}
	return nil
}
