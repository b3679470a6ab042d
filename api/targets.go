package api

import (
	"bufio"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddy-ark/caddy-ark/targets"
	"go.uber.org/zap"
)

// targetReport answers GET targets: what the checks of the targets found
// (docs/targets.md), as NDJSON, one targets.Line per identifier with a
// checked or checkable target that the key may read, chosen by ?status=
// (a state), ?prefix= (a NAAN, shoulder or URN namespace) and ?since= (an
// RFC 3339 time: only targets whose state began then or after). It reads
// the store, so every node of a shared store answers, whichever checks.
//
// As export does, it sends the status with the first bytes; a store that
// fails before that is answered 503, one that fails later aborts the
// answer.
func (c *apiCall) targetReport() error {
	f, err := c.targetFilter()
	if err != nil {
		return c.fail(err)
	}
	c.w.Header().Set("Content-Type", "application/x-ndjson")
	sent := &HeaderOnWrite{W: c.w}
	out := bufio.NewWriterSize(sent, 64<<10)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	err = targets.Report(c.r.Context(), []table.Table{c.rs.Table()}, c.store, f, func(l *targets.Line) error {
		if !c.key.may(false, l.ID) {
			return nil
		}
		return enc.Encode(l)
	})
	if err != nil && !sent.sent {
		return c.fail(storeError("", err))
	}
	if err != nil {
		c.site.Logger().Error("targets report cut short", zap.Error(err))
		panic(http.ErrAbortHandler)
	}
	if !sent.sent {
		c.w.WriteHeader(http.StatusOK)
	}
	if err := out.Flush(); err != nil {
		panic(http.ErrAbortHandler)
	}
	return nil
}

// targetFilter reads the parameters of GET targets: a parameter it does
// not know, or cannot read, is refused with 400.
func (c *apiCall) targetFilter() (targets.Filter, error) {
	var f targets.Filter
	q := c.r.URL.Query()
	for name := range q {
		if name != "status" && name != "prefix" && name != "since" {
			return f, refuse(http.StatusBadRequest, "unknown parameter %s: targets takes status, prefix and since", name)
		}
	}
	if s := q.Get("status"); s != "" {
		if !slices.Contains(store.AllTargetStates, store.TargetState(s)) {
			return f, refuse(http.StatusBadRequest, "status %s: want one of %s", s, states())
		}
		f.State = store.TargetState(s)
	}
	var err error
	if f.Prefix, err = targets.ParsePrefix(q.Get("prefix")); err != nil {
		return f, refuse(http.StatusBadRequest, "%v", err)
	}
	if s := q.Get("since"); s != "" {
		if f.Since, err = time.Parse(time.RFC3339, s); err != nil {
			return f, refuse(http.StatusBadRequest, "since %s: want an RFC 3339 time such as 2026-01-31T00:00:00Z", s)
		}
	}
	return f, nil
}

// states lists the target states, for a refusal.
func states() string {
	var s []string
	for _, st := range store.AllTargetStates {
		s = append(s, string(st))
	}
	return strings.Join(s, ", ")
}

// CheckResult is the answer to POST targets/check: how many identifiers
// have their targets checked next.
type CheckResult struct {
	Identifiers int `json:"identifiers"`
}

// checkTargets answers POST targets/check: the targets of the identifiers
// under ?prefix= (every identifier without it) are made due at once, for
// the node that checks to check them next; it answers 202 with how many
// identifiers have them. The key must be allowed to write every
// identifier under the prefix.
func (c *apiCall) checkTargets() error {
	q := c.r.URL.Query()
	for name := range q {
		if name != "prefix" {
			return writeAPIError(c.w, http.StatusBadRequest, "unknown parameter "+name+": targets/check takes prefix")
		}
	}
	raw := q.Get("prefix")
	p, err := targets.ParsePrefix(raw)
	if err != nil {
		return writeAPIError(c.w, http.StatusBadRequest, err.Error())
	}
	if !c.key.mayWritePrefix(raw) {
		what := "every identifier"
		if raw != "" {
			what = raw
		}
		msg := c.key.who() + " may not write " + what + ", which checking its targets needs"
		if mine := c.key.writablePrefixes(); len(mine) > 0 {
			msg += "; give a prefix it may write: " + strings.Join(mine, ", ")
		}
		return writeAPIError(c.w, http.StatusForbidden, msg)
	}
	n, err := targets.CheckNow(c.r.Context(), []table.Table{c.rs.Table()}, c.store, p)
	if err != nil {
		return c.fail(storeError("", err))
	}
	return writeJSON(c.w, http.StatusAccepted, CheckResult{Identifiers: n})
}

// writablePrefixes returns the prefixes of the key's write scopes, as a
// prefix parameter takes them, or none for a key that may write every
// identifier or none.
func (k *apiKey) writablePrefixes() []string {
	var prefixes []string
	for _, sc := range k.scopes {
		switch {
		case !sc.write || sc.admin || sc.all:
		case sc.urn != "":
			prefixes = append(prefixes, strings.TrimSuffix(sc.urn, ":"))
		case sc.name != "":
			prefixes = append(prefixes, "ark:"+sc.naan+"/"+sc.name)
		default:
			prefixes = append(prefixes, "ark:"+sc.naan)
		}
	}
	return prefixes
}

// mayWritePrefix reports whether the key may write every identifier under
// prefix, as targets.ParsePrefix reads it ("" for every identifier).
func (k *apiKey) mayWritePrefix(prefix string) bool {
	switch {
	case prefix == "":
		return k.anyScope(true, func(sc *scope) bool { return sc.all })
	case len(prefix) > 4 && strings.EqualFold(prefix[:4], "urn:"):
		urn := "urn:" + strings.ToLower(strings.TrimSuffix(prefix[4:], ":")) + ":"
		return k.anyScope(true, func(sc *scope) bool { return sc.all || sc.urn == urn })
	}
	naan, shoulder, err := normalize.ParsePrefix(prefix)
	return err == nil && k.mayPrefix(true, naan, shoulder)
}
