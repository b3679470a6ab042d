package api

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/caddy-ark/caddy-ark/ezid/download"
	"github.com/caddy-ark/caddy-ark/importer"
	"github.com/caddy-ark/caddy-ark/store"
)

// importFormat is the format of POST import's body that its query
// parameter "format" names: "json" (the default), a table file; or one of
// `caddy ark import`'s other formats, such as EZID's downloads ("anvl",
// "csv", "xml"), read as that command reads them, plain or gzip.
func importFormat(r *http.Request) (string, error) {
	format := r.URL.Query().Get("format")
	if format == "" || format == "json" {
		return "json", nil
	}
	if err := (importer.Options{Format: format}).Check(); err != nil || format == "auto" {
		return "", refuse(http.StatusBadRequest, "format %q: give json (a table file, the default), csv, tsv, rewritemap, nginx, anvl or xml", format)
	}
	return format, nil
}

// importSource imports body, a source in format, into the store as
// `caddy ark import --postgres` does, all of it or none: every entry is
// checked as the API checks a write (scope, target), and EZID's reserved
// identifiers are kept reserved. The first problem refuses it with its
// line.
func (ss *session) importSource(ctx context.Context, body io.Reader, format string) (*ImportResult, error) {
	limit := ss.a.maxBody()
	plain, err := download.Gunzip(bufio.NewReaderSize(body, 64<<10))
	if err != nil {
		return nil, refuse(http.StatusBadRequest, "the body is not gzip: %v", err)
	}
	var problems strings.Builder
	entries, n, readErr, err := ss.importStream(ctx, func(emit func(*store.Binding) error) error {
		_, err := importer.Bindings(plain, "body", importer.Options{Format: format, EZIDBinding: ss.a.EZIDBinding}, &problems, func(b *store.Binding) error {
			if err := ss.checkImported(b); err != nil {
				return err
			}
			return emit(b)
		})
		return err
	})
	if readErr != nil {
		var tooLarge *http.MaxBytesError
		var ae *apiError
		switch {
		case errors.As(readErr, &tooLarge):
			return nil, refuse(http.StatusRequestEntityTooLarge, "the body is larger than the API's max_body, %s", formatBytes(limit))
		case errors.As(readErr, &ae):
			return nil, refuse(ae.status, "entry %d: %s", entries+1, ae.msg)
		case problems.Len() > 0:
			first, _, _ := strings.Cut(problems.String(), "\n")
			return nil, refuse(http.StatusBadRequest, "%s", first)
		}
		return nil, refuse(http.StatusBadRequest, "%v", readErr)
	}
	if err != nil {
		return nil, storeError("", err)
	}
	countWrites(ss.key.name, n)
	return &ImportResult{Entries: entries, Imported: n}, nil
}

// checkImported checks one binding of an imported source as the API
// checks a write: the caller's scope, and the target of a bound one.
func (ss *session) checkImported(b *store.Binding) error {
	if _, err := ss.managedKey(b.Key, true); err != nil {
		return err
	}
	if b.Status == 0 {
		return nil
	}
	return ss.a.checkTarget(b.Key, b.Target, b.Status)
}
