package caddytest

import (
	"encoding/json"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
)

// On Linux each config Caddy loads listens on a socket of its own
// (SO_REUSEPORT), and the kernel shares new connections between the old
// config's socket and the new one until the old server has closed its
// listener, which Caddy does in the background after caddy.Load returns.
// A connection the old socket took then is reset, or read and dropped by
// a server shutting down: about 1 reload in 100 failed a request sent
// right after it. LoadConfig waits for the old listeners to close, so a
// test's next connection reaches the new config.

func init() {
	caddy.RegisterModule(closeSignal{})
}

// closeSignal is a listener wrapper that records each listener it wraps
// until that listener is closed.
type closeSignal struct{}

// CaddyModule returns the Caddy module information.
func (closeSignal) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "caddy.listeners.ark_test_close_signal",
		New: func() caddy.Module { return new(closeSignal) },
	}
}

// WrapListener records ln as open.
func (closeSignal) WrapListener(ln net.Listener) net.Listener {
	s := &signalledListener{Listener: ln, closed: make(chan struct{})}
	openListeners.Store(s, struct{}{})
	return s
}

// openListeners holds the signalledListeners not closed yet.
var openListeners sync.Map

// signalledListener closes its channel once the listener under it is
// closed.
type signalledListener struct {
	net.Listener
	once   sync.Once
	closed chan struct{}
}

// Close closes the listener, then says so.
func (l *signalledListener) Close() error {
	err := l.Listener.Close()
	l.once.Do(func() {
		openListeners.Delete(l)
		close(l.closed)
	})
	return err
}

// LoadConfig loads cfg, a JSON config, as caddy.Load does, with every
// server's listeners wrapped in closeSignal; when a new config started,
// it waits for the listeners of the config it replaced to close.
func LoadConfig(cfg []byte, forceReload bool) error {
	signalled, err := withCloseSignal(cfg)
	if err != nil {
		return err
	}
	old := listenersOpen()
	if err := caddy.Load(signalled, forceReload); err != nil {
		return err
	}
	started := false
	for l := range listenersOpen() {
		started = started || !old[l]
	}
	if !started {
		// Caddy kept the running config: it was the same.
		return nil
	}
	for l := range old {
		select {
		case <-l.closed:
		case <-time.After(10 * time.Second):
			return fmt.Errorf("the replaced config's listener on %s is still open 10s after the reload", l.Addr())
		}
	}
	return nil
}

// listenersOpen returns the signalledListeners not closed yet.
func listenersOpen() map[*signalledListener]bool {
	open := make(map[*signalledListener]bool)
	openListeners.Range(func(k, _ any) bool {
		open[k.(*signalledListener)] = true
		return true
	})
	return open
}

// withCloseSignal returns cfg with closeSignal added to the listener
// wrappers of each HTTP server.
func withCloseSignal(cfg []byte) ([]byte, error) {
	var config map[string]any
	if err := json.Unmarshal(cfg, &config); err != nil {
		return nil, err
	}
	apps, _ := config["apps"].(map[string]any)
	httpApp, _ := apps["http"].(map[string]any)
	servers, _ := httpApp["servers"].(map[string]any)
	for _, server := range servers {
		server := server.(map[string]any)
		wrappers, _ := server["listener_wrappers"].([]any)
		server["listener_wrappers"] = append(wrappers, map[string]any{"wrapper": "ark_test_close_signal"})
	}
	return json.Marshal(config)
}
