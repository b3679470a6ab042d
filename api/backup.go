package api

import (
	"io"
	"net/http"
	"strconv"

	"github.com/caddy-ark/caddy-ark/store"
	"go.uber.org/zap"
)

// backup answers GET backup, for a key with the admin scope: a copy of the
// whole store in its own file format (a bbolt file for store bolt), as of
// the request, taken while the site goes on serving and writing. Opened
// in place of the store's file, it is the store as it was. A store that
// is not one file (PostgreSQL) answers 501: its own tools back it up, and
// `caddy ark store dump` copies it.
func (c *apiCall) backup() error {
	if !c.key.isAdmin() {
		return writeAPIError(c.w, http.StatusForbidden, "the key's scopes do not include admin, which backing up the whole store needs")
	}
	b, ok := c.store.(store.Backuper)
	if !ok {
		return writeAPIError(c.w, http.StatusNotImplemented, "this store is not one file to copy: back it up with its own tools, or with caddy ark store dump")
	}
	copied, size, err := b.Backup(c.r.Context())
	if err != nil {
		return c.fail(storeError("", err))
	}
	defer copied.Close()
	h := c.w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Disposition", `attachment; filename="ark-store.db"`)
	h.Set("Content-Length", strconv.FormatInt(size, 10))
	h.Set("Cache-Control", "no-store")
	c.w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(c.w, copied); err != nil {
		c.site.Logger().Warn("backup cut short", zap.Error(err))
		panic(http.ErrAbortHandler) // the client sees a failed transfer, never a short file with 200
	}
	return nil
}

// isAdmin reports whether the key has the admin scope.
func (k *apiKey) isAdmin() bool {
	for _, sc := range k.scopes {
		if sc.admin {
			return true
		}
	}
	return false
}
