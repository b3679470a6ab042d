// Package runstart is the Caddy app that runs, when a configuration
// starts running, what its modules must not do when it is only checked.
// `caddy validate` provisions every module of a configuration and cleans
// them up again without starting its apps; a module that would open a
// store file there (creating it, or waiting on the lock of the server
// that has it open) hands that step to this app instead, whose Start
// runs only for a configuration that runs, before Caddy reports it
// loaded.
package runstart

import (
	"errors"
	"sync"

	"github.com/caddyserver/caddy/v2"
)

func init() {
	caddy.RegisterModule(new(App))
}

// App runs the steps its configuration's modules gave it, in the order
// they gave them, when the configuration starts. It has no settings: a
// module that needs it loads it (see OnStart).
type App struct {
	mu    sync.Mutex
	steps []func() error
}

// CaddyModule returns the Caddy module information.
func (*App) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "ark_runstart",
		New: func() caddy.Module { return new(App) },
	}
}

// OnStart gives step to the app of ctx's configuration, to run when that
// configuration starts; a step's error stops the configuration from
// starting, as a provisioning error would have stopped it from loading.
// A module provisioned by ctx must call it while it is provisioned.
func OnStart(ctx caddy.Context, step func() error) error {
	mod, err := ctx.App("ark_runstart")
	if err != nil {
		return err
	}
	app := mod.(*App)
	app.mu.Lock()
	app.steps = append(app.steps, step)
	app.mu.Unlock()
	return nil
}

// Start runs the steps in order, every one of them even after one
// failed (each module then knows its own outcome), and returns their
// errors.
func (a *App) Start() error {
	a.mu.Lock()
	steps := a.steps
	a.steps = nil
	a.mu.Unlock()
	var errs []error
	for _, step := range steps {
		errs = append(errs, step())
	}
	return errors.Join(errs...)
}

// Stop does nothing: the modules that gave steps undo them in their
// Cleanup.
func (a *App) Stop() error { return nil }

// Interface guard.
var _ caddy.App = (*App)(nil)
