package console

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/store"
)

// withdrawView is what the withdraw form shows.
type withdrawView struct {
	ID      string
	Target  string
	Version uint64
	Reason  string
}

// withdrawForm shows the form that withdraws the identifier at raw, with
// the reason given so far; problem says why it was not done, and status
// is the answer's.
func (p *page) withdrawForm(raw string, status int, problem, reason string) error {
	id := unescapeID(raw)
	if why := p.mayNotWrite(id); why != "" {
		return p.problem(http.StatusForbidden, why)
	}
	rec, err := p.get(id)
	switch {
	case errors.Is(err, errNotStored):
		return p.problem(http.StatusNotFound, id+" is not minted or bound in the store: there is nothing to withdraw.")
	case err != nil:
		return p.fail(err)
	case rec.Binding.State() == store.StateWithdrawn:
		return p.problem(http.StatusConflict, id+" is withdrawn already.")
	}
	b := rec.Binding
	return p.render(status, view{Title: "Withdraw " + b.Key, Error: problem, Page: withdrawView{ID: b.Key, Target: b.Target, Version: b.Version, Reason: reason}}, "withdraw")
}

// withdraw withdraws the identifier at raw for the reason given, on
// condition that it has not changed since the form was shown.
func (p *page) withdraw(raw string) error {
	id := unescapeID(raw)
	reason := strings.TrimSpace(p.r.PostForm.Get("reason"))
	if reason == "" {
		return p.withdrawForm(raw, http.StatusBadRequest, "Say why it is withdrawn: the reason is shown to everyone who follows it.", "")
	}
	version, err := strconv.ParseUint(p.r.PostForm.Get("version"), 10, 64)
	if err != nil || version == 0 {
		return p.withdrawForm(raw, http.StatusBadRequest, "The form has no version: it was not sent from the withdraw page.", reason)
	}
	cd := api.Conditions{IfMatch: []string{`"` + strconv.FormatUint(version, 10) + `"`}}
	_, err = p.c.api.Withdraw(p.r.Context(), p.site, p.sess.key, escapeID(id), reason, cd)
	if err != nil && api.ErrorStatus(err) == http.StatusPreconditionFailed {
		return p.withdrawForm(raw, http.StatusPreconditionFailed, "It was changed by someone else since you opened this form: look at it again before you withdraw it.", reason)
	}
	if err != nil {
		return p.withdrawForm(raw, api.ErrorStatus(err), err.Error(), reason)
	}
	http.Redirect(p.w, p.r, p.c.base+"id/"+escapeID(id)+"?done=withdrawn", http.StatusSeeOther)
	return nil
}
