package localcopy

import (
	"fmt"
	"path/filepath"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
)

// copies holds the process's copies by directory, shared by the handlers
// (and the configs, across reloads) that keep one there.
var copies = caddy.NewUsagePool()

// pooled is a copy in the pool, with the store it follows.
type pooled struct {
	c        *Copy
	settings string
	release  func() error // lets go of the store
}

// Destruct implements caddy.Destructor.
func (p *pooled) Destruct() error {
	err := p.c.Close()
	if rerr := p.release(); err == nil {
		err = rerr
	}
	return err
}

// Acquire returns the copy kept in dir of the store whose configuration
// is settings, opening it (see Open) unless a handler of the process has
// it open already, and a release that closes it once the last handler
// lets go of it. hold gives the store to follow and lets go of it: the
// store's shared object (store.Shared), which outlives the handler's
// module. Two store configurations may not keep a copy in one directory.
func Acquire(dir, settings string, hold func() (store.Store, func() error), o Options) (*Copy, func() error, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	v, _, err := copies.LoadOrNew(dir, func() (caddy.Destructor, error) {
		s, release := hold()
		c, err := Open(dir, s, o)
		if err != nil {
			_ = release()
			return nil, err
		}
		return &pooled{c: c, settings: settings, release: release}, nil
	})
	if err != nil {
		return nil, nil, err
	}
	p := v.(*pooled)
	releaseCopy := store.ReleaseOnce(func() error {
		_, err := copies.Delete(dir)
		return err
	})
	if p.settings != settings {
		_ = releaseCopy()
		return nil, nil, fmt.Errorf("%s: the directory keeps the copy of another store configuration of this process; use a directory per store", dir)
	}
	return p.c, releaseCopy, nil
}

// Attach returns s, a store module whose configuration is settings, read
// through the copy kept in dir (see Acquire and Wrap), which follows
// shared, the store's shared object, and a release for the copy.
func Attach(dir, settings string, s store.Store, shared store.Shared, logger *zap.Logger) (store.Store, func() error, error) {
	if shared == nil {
		return nil, nil, fmt.Errorf("local_copy: the store (%T) is not shared across configs", s)
	}
	c, release, err := Acquire(dir, settings, shared.Hold, Options{Logger: logger})
	if err != nil {
		return nil, nil, fmt.Errorf("local_copy: %w", err)
	}
	return Wrap(s, c), release, nil
}
