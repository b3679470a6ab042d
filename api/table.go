package api

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/caddy-ark/caddy-ark/importer"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

// Export answers GET export for who: fn is called with every binding of
// the store that the caller may read, in key order, as a table entry (see
// serveExport), until it returns an error, which Export returns.
func (a *API) Export(ctx context.Context, s Site, who *Caller, fn func(table.Entry) error) error {
	ss, err := a.session(s, who)
	if err != nil {
		return err
	}
	return ss.export(ctx, fn)
}

// export calls fn with every binding that the key may read, but names
// minted and not bound yet, as importer.EntryOf writes it.
func (ss *session) export(ctx context.Context, fn func(table.Entry) error) error {
	return ss.store.Each(ctx, func(b *store.Binding) error {
		if b.State() == store.StateMinted || !ss.key.may(false, b.Key) {
			return nil
		}
		return fn(importer.EntryOf(b))
	})
}

// serveExport answers GET export through Export: the store's bindings that the key may
// read, as a table file, streamed in key order, each as importer.EntryOf
// writes it (a withdrawal's reason in the meta key "reason"), so that
// importing the export makes the same bindings again. Names minted but
// not bound yet are left out: a table has no way to hold them.
//
// The status is sent with the first bytes that leave the buffer: a store
// that fails before that is answered 503. Once the answer has started, a
// failure aborts it (http.ErrAbortHandler), so that the client sees a
// failed transfer, never a table that ends early with 200.
func (c *apiCall) serveExport() error {
	c.w.Header().Set("Content-Type", "application/json")
	c.w.Header().Set("Content-Disposition", `attachment; filename="ark-export.json"`)
	sent := &HeaderOnWrite{W: c.w}
	out := bufio.NewWriterSize(sent, 64<<10)
	started := false
	err := c.a.Export(c.r.Context(), c.site, &Caller{c.key}, func(e table.Entry) error {
		sep := ",\n"
		if !started {
			sep = "{\"entries\": [\n"
			started = true
		}
		data, err := json.Marshal(e)
		if err != nil {
			return err
		}
		_, _ = out.WriteString(sep)
		_, err = out.Write(data)
		return err
	})
	if err != nil && !sent.sent {
		c.w.Header().Del("Content-Disposition")
		return c.fail(err)
	}
	if err != nil {
		c.site.Logger().Error("export cut short", zap.Error(err))
		panic(http.ErrAbortHandler)
	}
	if !started {
		_, _ = out.WriteString("{\"entries\": [")
	}
	_, _ = out.WriteString("\n]}\n")
	if err := out.Flush(); err != nil {
		panic(http.ErrAbortHandler) // the client is gone, or the answer unfinished
	}
	return nil
}

// HeaderOnWrite writes to W, sending the status 200 before its first
// bytes: until then a failure can still be answered with its own status.
type HeaderOnWrite struct {
	// W is the response written to.
	W    http.ResponseWriter
	sent bool
}

// Write sends the status 200 before the first bytes, then writes p to W.
func (h *HeaderOnWrite) Write(p []byte) (int, error) {
	if !h.sent {
		h.sent = true
		h.W.WriteHeader(http.StatusOK)
	}
	return h.W.Write(p)
}

// StopWithServer makes long requests, such as an import, stop when the
// server that runs the handler begins to shut down (a stop or a reload)
// or Stop is called: Caddy waits for running requests, and an import
// abandoned there keeps nothing. The handler calls it when it provisions.
func (a *API) StopWithServer(ctx caddy.Context) {
	a.stopping, a.stop = context.WithCancel(context.Background())
	if srv, ok := ctx.Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server); ok {
		srv.RegisterOnShutdown(a.stop)
	}
}

// Stop stops the long requests running, when the handler is cleaned up.
func (a *API) Stop() {
	if a.stop != nil {
		a.stop()
	}
}

// ImportResult is the answer to POST import: how many entries the table
// held, and how many of them were new in the store.
type ImportResult struct {
	Entries  int `json:"entries"`
	Imported int `json:"imported"`
}

// Import answers POST import for who: the table file that body holds, at
// most max_body bytes, into the store, all of it or, at the first entry
// refused, none of it (see serveImport).
func (a *API) Import(ctx context.Context, s Site, who *Caller, body io.Reader) (*ImportResult, error) {
	ss, err := a.session(s, who)
	if err != nil {
		return nil, err
	}
	return ss.importTable(ctx, http.MaxBytesReader(nil, io.NopCloser(body), a.maxBody()))
}

// serveImport answers POST import: a table file (or, with ?format=, a
// source `caddy ark import` reads, such as EZID's downloads) into the
// store, all of it or, at the first entry refused, none of it. The body is read as the
// store takes it, so memory does not grow with its size; a client that
// goes away, or a server that stops, ends it with nothing kept.
func (c *apiCall) serveImport() error {
	limit := c.a.maxBody()
	if c.r.ContentLength > limit {
		return writeAPIError(c.w, http.StatusRequestEntityTooLarge, "the body is larger than the API's max_body, "+formatBytes(limit))
	}
	format, err := importFormat(c.r)
	if err != nil {
		return c.fail(err)
	}
	body := http.MaxBytesReader(c.w, c.r.Body, limit)
	var res *ImportResult
	if format == "json" {
		res, err = c.importTable(c.r.Context(), body)
	} else {
		res, err = c.importSource(c.r.Context(), body, format)
	}
	if err != nil {
		return c.fail(err)
	}
	return writeJSON(c.w, http.StatusOK, res)
}

// importTable imports the table file body, which ends with an
// *http.MaxBytesError past max_body.
func (ss *session) importTable(ctx context.Context, body io.Reader) (*ImportResult, error) {
	limit := ss.a.maxBody()
	tr := table.NewReader(body)
	entries, n, inputErr, err := ss.importStream(ctx, func(emit func(*store.Binding) error) error {
		_, err := tr.Each(func(e *table.Entry) error {
			b, err := ss.importBinding(e)
			if err != nil {
				return err
			}
			return emit(b)
		})
		return err
	})
	if inputErr != nil {
		var tooLarge *http.MaxBytesError
		var ae *apiError
		switch {
		case errors.As(inputErr, &tooLarge):
			return nil, refuse(http.StatusRequestEntityTooLarge, "the body is larger than the API's max_body, %s", formatBytes(limit))
		case errors.As(inputErr, &ae):
			return nil, refuse(ae.status, "line %d: entry %d: %s", tr.Line, entries, ae.msg)
		}
		return nil, refuse(http.StatusBadRequest, "line %d: %v", tr.Line, inputErr)
	}
	if err != nil {
		return nil, storeError("", err)
	}
	countWrites(ss.key.name, n)
	return &ImportResult{Entries: entries, Imported: n}, nil
}

// importBinding checks one entry of an imported table and returns its
// binding (see importer.Binding).
func (ss *session) importBinding(e *table.Entry) (*store.Binding, error) {
	key, err := ss.managedKey(e.ID, true)
	if err != nil {
		return nil, err
	}
	e.ID = key
	if err := checkMetaText(key, e.Meta); err != nil {
		return nil, err
	}
	b, err := importer.Binding(e)
	if err != nil {
		return nil, refuse(http.StatusBadRequest, "%s: %v", key, err)
	}
	if err := ss.a.checkTarget(key, e.Target, e.Status); err != nil {
		return nil, err
	}
	return b, nil
}
