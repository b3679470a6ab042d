package answer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/breaker"
	"github.com/caddy-ark/caddy-ark/localcopy"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
	"go.uber.org/zap"
)

// readyTimeout bounds the store lookup of a readiness check, for a store
// whose own timeout is longer.
const readyTimeout = 5 * time.Second

// readiness is the body of an answer at the ready path.
type readiness struct {
	Ready bool `json:"ready"`
	// "ok", "none" (no store), "unavailable" (it did not answer), or
	// "circuit_open" (it stopped answering and is not asked until a probe
	// gets an answer).
	Store string `json:"store"`
	// "ok", or "damaged": a compiled table was found damaged or changed
	// in place, and what it may hold is answered 503.
	Tables string `json:"tables"`
	// With local_copy: how current the node's copy of the store is. A
	// copy that serves answers every identifier when the store does not:
	// the node stays ready then.
	Copy *localcopy.Status `json:"copy,omitempty"`
	// Why not ready, in general terms: the details (a server's address,
	// a file's path) are in the log, never in this answer, which anyone
	// may ask for.
	Error string `json:"error,omitempty"`
	// With a replicated store (PostgreSQL): whether writes and reads are
	// answered, the server the node follows (primary or standby) and its
	// replay lag. Ready says whether reads are answered.
	Replication *store.Replication `json:"replication,omitempty"`
}

// checkStore asks s whether it can answer reads and take writes: its own
// check when it has one, else a lookup of nothing.
func checkStore(ctx context.Context, s store.Store) error {
	if c, ok := s.(store.Checker); ok {
		return c.Check(ctx)
	}
	_, err := s.Lookup(ctx, nil)
	return err
}

// readyAnswer works out the answer to a load balancer's readiness check:
// 200 when the handler can answer every identifier it holds, 503 when its
// store does not answer or cannot take writes (or its circuit is open) or
// its table is damaged, with a JSON body saying which, and the log saying
// why. The store is asked for nothing, which costs it one round trip; an
// open circuit answers at once.
func (an *Answerer) readyAnswer(r *http.Request, rs *resolve.Resolver) reply {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		a := refusal(http.StatusMethodNotAllowed, "the readiness check answers GET and HEAD only", "")
		a.allow = "GET, HEAD"
		return a
	}
	rd := readiness{Ready: true, Store: "none", Tables: "ok"}
	var why []string
	if rs == nil {
		rd.Ready, rd.Store = false, "unavailable"
		why = append(why, "the configuration is being replaced")
	} else {
		if table.Damaged(rs.Table()) {
			rd.Ready, rd.Tables = false, "damaged"
			why = append(why, resolve.ErrTableDamaged.Error())
		}
		if s := rs.Store(); s != nil {
			ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
			err := checkStore(ctx, s)
			cancel()
			copyServes := false
			if c, ok := s.(interface{ Copy() *localcopy.Copy }); ok {
				st := c.Copy().Status()
				rd.Copy, copyServes = &st, st.State == "serving"
			}
			switch {
			case err == nil:
				rd.Store = "ok"
			case copyServes:
				rd.Store = "unavailable"
			case errors.Is(err, breaker.ErrOpen):
				rd.Ready, rd.Store = false, "circuit_open"
				why = append(why, "the store stopped answering: it is not asked until a probe gets an answer")
			default:
				rd.Ready, rd.Store = false, "unavailable"
				why = append(why, "the store is unavailable")
			}
			if rp, ok := s.(store.Replicated); ok {
				rep := rp.Replication()
				rd.Replication = &rep
			}
			if err != nil {
				// Anyone may ask: the answer says the state, the log
				// why (a server's address and user, a file's path).
				an.logs.Log("not ready", zap.ErrorLevel, "readiness check: the store is unavailable", zap.Error(err))
			}
		}
	}
	rd.Error = strings.Join(why, "; ")
	if !rd.Ready {
		return reply{kind: replyReady, status: http.StatusServiceUnavailable, ready: rd}
	}
	return reply{kind: replyReady, status: http.StatusOK, ready: rd}
}

// writeReady writes the report of a readiness check with status.
func writeReady(w http.ResponseWriter, r *http.Request, status int, rd readiness) error {
	if status != http.StatusOK {
		w.Header().Set("Retry-After", resolve.RetryAfter)
	}
	body, _ := json.Marshal(rd)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return nil
	}
	_, err := fmt.Fprintf(w, "%s\n", body)
	return err
}

// CheckReadyPath checks the ready option p: "" for none, else a path that
// is neither an identifier's nor, when hasAPI, the API's at apiPrefix.
func CheckReadyPath(p string, hasAPI bool, apiPrefix string) error {
	switch {
	case p == "":
		return nil
	case !strings.HasPrefix(p, "/") || strings.ContainsAny(p, "?#"):
		return fmt.Errorf("ready %q: a path such as /healthz/ark, starting with /", p)
	case len(p) >= 5 && (strings.EqualFold(p[1:5], "ark:") || strings.EqualFold(p[1:5], "urn:")):
		return fmt.Errorf("ready %q: identifiers are answered there; choose another path", p)
	case hasAPI && (p == apiPrefix || strings.HasPrefix(p, apiPrefix+"/")):
		return fmt.Errorf("ready %q: the API answers there; choose another path", p)
	}
	return nil
}
