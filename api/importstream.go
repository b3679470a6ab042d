package api

import (
	"context"
	"errors"
	"io"

	"github.com/caddy-ark/caddy-ark/store"
)

// importStream imports into the store, all of them or none, the bindings
// that read hands to emit: read runs in a goroutine of its own while the
// store's Import takes them, and emit fails once the import has stopped.
// It returns how many bindings the store took, how many it imported,
// read's error when the import stopped at it (the store took every
// binding before it), and the store's error otherwise: also when read
// stopped because the import's context was done, which is no fault of
// the input.
func (ss *session) importStream(ctx context.Context, read func(emit func(*store.Binding) error) error) (entries, imported int, readErr, storeErr error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if ss.a.stopping != nil {
		defer context.AfterFunc(ss.a.stopping, cancel)()
	}
	bindings := make(chan *store.Binding, 256)
	var failed error // valid once bindings is closed
	go func() {
		defer close(bindings)
		failed = read(func(b *store.Binding) error {
			select {
			case bindings <- b:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	imported, storeErr = ss.store.Import(ctx, func() (*store.Binding, error) {
		b, ok := <-bindings
		switch {
		case ok:
			entries++
			return b, nil
		case errors.Is(failed, context.Canceled) || errors.Is(failed, context.DeadlineExceeded):
			// read stopped because the import did (a reload, the client
			// gone): the import's error, not the input's.
			return nil, failed
		case failed != nil:
			readErr = failed
			return nil, failed
		}
		return nil, io.EOF
	}, ss.key.name)
	cancel()
	for range bindings { // read has stopped once bindings is closed
	}
	return entries, imported, readErr, storeErr
}
