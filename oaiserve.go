package ark

import (
	"net/http"
	"time"

	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// oaiSite is the handler as the OAI-PMH provider sees it.
type oaiSite struct{ h *Handler }

// Table returns the table served and its datestamp: the latest
// modification time of its files, or when the configuration was loaded
// if it holds inline entries and that is later. The resolver and the
// files' stamps are read together, under the lock the watcher swaps them
// under.
func (s oaiSite) Table() (table.Table, time.Time) {
	h := s.h
	h.live.mu.Lock()
	rs := h.resolver.Load()
	var stamp time.Time
	for _, st := range h.live.stamps {
		if t := time.Unix(0, st.modTime); st.err == "" && t.After(stamp) {
			stamp = t
		}
	}
	h.live.mu.Unlock()
	if len(h.Entries) > 0 && h.loaded.After(stamp) {
		stamp = h.loaded
	}
	return rs.Table(), stamp
}

// Store returns the store, nil when the site has none.
func (s oaiSite) Store() store.Store { return s.h.Store() }

func (s oaiSite) Links(r *http.Request) info.Links { return s.h.self(r) }
func (s oaiSite) Organization() string             { return s.h.Organization }
func (s oaiSite) Defaults(key string) metadata.Defaults {
	a, err := normalize.ParseARK(key)
	if err != nil {
		return nil
	}
	return s.h.machine.defaults.covering(a)
}
