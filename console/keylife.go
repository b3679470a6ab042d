package console

import (
	"sync"
	"time"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddyserver/caddy/v2"
)

// A key removed by a reload and added back by another must not bring its
// old sessions back: its cookies are still signed right. So the process
// keeps, for each key that a loaded console has (by its name and hash,
// under the console's secret), since when it has had the key without a
// break, and a session signed in before that is refused. It keeps this for
// each console (by its name) apart: another console that has the same key
// under the same secret, and kept it, does not keep it alive for one
// that lost it.

// keyLives holds a *keyLife for each key that a loaded console has: the
// consoles of the configuration being replaced and of the one replacing
// it hold a key together, so one kept by a reload lives on.
var keyLives = caddy.NewUsagePool()

// seenKeys holds the keys the consoles of this process have had, which
// come back with a new life.
var seenKeys sync.Map

// keyLife is an unbroken stretch of time during which the consoles of
// one name have had a key.
type keyLife struct {
	// since is when it began; zero for a key those consoles had not had
	// before in this process, whose sessions from before the process started (signed with
	// the same secret_file, or on another node) are as good as any.
	since time.Time
}

// Destruct does nothing: a life ends when no console holds it.
func (*keyLife) Destruct() error { return nil }

// keyID names key k of c in keyLives and seenKeys.
func (c *Console) keyID(k *api.Caller) string {
	return string(mac(c.secret, "key", c.name, k.Name(), string(k.Hash())))
}

// holdKeys takes hold of the lives of the API's keys, beginning those of
// the keys no console holds now.
func (c *Console) holdKeys() {
	c.keySince = map[string]time.Time{}
	for _, k := range c.api.Callers() {
		id := c.keyID(k)
		v, _, _ := keyLives.LoadOrNew(id, func() (caddy.Destructor, error) {
			if _, seen := seenKeys.LoadOrStore(id, true); seen {
				return &keyLife{since: time.Now()}, nil
			}
			return &keyLife{}, nil
		})
		c.held = append(c.held, id)
		c.keySince[k.Name()] = v.(*keyLife).since
	}
}

// Close lets go of the lives of c's keys: a key that no console holds
// any longer ends its sessions for good, should it come back. Caddy's
// cleanup of the handler calls it, once.
func (c *Console) Close() {
	c.release.Do(func() {
		for _, id := range c.held {
			_, _ = keyLives.Delete(id)
		}
	})
}
