package ark

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/caddy-ark/caddy-ark/answer"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddy-ark/caddy-ark/targets"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// checkers holds the running target checkers, one per store (the object
// its modules share, see store.Shared) and targets_check configuration: a
// reload that keeps both keeps the checker, with its lease, its queues and
// its origins' turns; each handler using it adds its site.
var checkers = caddy.NewUsagePool()

// pooledChecker is a checker in checkers, with the hold it has on the
// store's shared object: the store stays open until the checker has
// stopped and given its lease up, whatever order Caddy cleans the
// config's modules up in.
type pooledChecker struct {
	*targets.Checker
	release func() error
}

// Destruct stops the checker, then lets go of its store.
func (p pooledChecker) Destruct() error {
	p.Stop()
	return p.release()
}

// handlerChecks is what a Handler keeps about its target checks.
type handlerChecks struct {
	checker *targets.Checker
	key     string // in checkers
	site    *checkedSite
}

// startChecks starts checking the targets, or joins the checker of the
// same store and configuration, when targets_check is set.
func (h *Handler) startChecks(ctx caddy.Context) error {
	if h.TargetsCheck == nil {
		return nil
	}
	if h.stores.shared == nil {
		return fmt.Errorf("targets_check: the store (%T) is not shared across configs", h.stores.store)
	}
	st := h.stores.shared.Shared()
	cfg, err := json.Marshal(h.TargetsCheck)
	if err != nil {
		return err
	}
	srv, _ := ctx.Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	site := &checkedSite{h: h, srv: srv}
	key := fmt.Sprintf("%p %s", st, cfg)
	logger := h.logger
	v, _, err := checkers.LoadOrNew(key, func() (caddy.Destructor, error) {
		held, release, _ := h.stores.hold()
		ch, err := targets.New(h.TargetsCheck, held, site.name(), logger)
		if err != nil {
			return nil, errors.Join(err, release())
		}
		ch.Start()
		return pooledChecker{Checker: ch, release: release}, nil
	})
	if err != nil {
		return err
	}
	h.checks = handlerChecks{checker: v.(pooledChecker).Checker, key: key, site: site}
	h.checks.checker.AddSite(site)
	return nil
}

// stopChecks takes the handler's site from its checker, which stops when
// no handler uses it any more.
func (h *Handler) stopChecks() {
	if h.checks.checker == nil {
		return
	}
	h.checks.checker.RemoveSite(h.checks.site)
	_, _ = checkers.Delete(h.checks.key)
	h.checks = handlerChecks{}
}

// tablesChanged tells the checker that the handler swapped its table.
func (h *Handler) tablesChanged() {
	if h.checks.checker != nil {
		h.checks.checker.TablesChanged()
	}
}

// checkedSite is a handler's site as the checker sees it.
type checkedSite struct {
	h   *Handler
	srv *caddyhttp.Server // nil when the handler is not in a server
}

// Table implements targets.Site.
func (s *checkedSite) Table() table.Table {
	if rs := s.h.resolver.Load(); rs != nil {
		return rs.Table()
	}
	return nil
}

// ServeHTTP implements targets.Site: the request goes through the
// server's routes, as a client's would.
func (s *checkedSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.srv == nil {
		http.Error(w, "the handler is not in a server", http.StatusServiceUnavailable)
		return
	}
	s.srv.ServeHTTP(w, r)
}

// Host implements targets.Site: base_url's host, else the first name the
// site is configured for, else localhost.
func (s *checkedSite) Host() string {
	if s.h.base.Who != "" {
		return s.h.base.Who
	}
	if s.srv != nil {
		if name := answer.ServerHostName(s.srv); name != "" {
			return name
		}
	}
	return "localhost"
}

// name names the site in the checks' default User-Agent.
func (s *checkedSite) name() string {
	if s.h.base.Base != "" {
		return s.h.base.Base
	}
	return s.Host()
}
