package localcopy

import (
	"errors"
	"fmt"
	"os"
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
		if err := claim(dir, settings); err != nil {
			return nil, err
		}
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

// storeName is the file in a copy's directory that holds the
// configuration of the store copied.
const storeName = "store.json"

// claim makes dir the copy of the store configured by settings: a copy
// there of a store configured otherwise (another database, perhaps) is
// removed, to be built again.
func claim(dir, settings string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	path := filepath.Join(dir, storeName)
	was, err := os.ReadFile(path)
	if err == nil && string(was) == settings {
		return nil
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, name := range []string{baseName, journalName} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	f, err := os.CreateTemp(dir, ".store-*")
	if err != nil {
		return err
	}
	_, err = f.WriteString(settings)
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		removeFile(f)
		return err
	}
	return renameSynced(f.Name(), path)
}
