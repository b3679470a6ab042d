package console

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/caddy-ark/caddy-ark/api"
)

// retargetView is what the retarget page shows: the form, then a
// preview with its confirm step, then what was done.
type retargetView struct {
	In      api.RetargetRequest
	Preview *api.RetargetPreview
	More    int // changes the preview does not list
	Result  *api.RetargetResult
	Undone  *api.UndoResult
}

// retargetForm shows the retarget page; problem says why a step was not
// done, and status is the answer's.
func (p *page) retargetForm(v retargetView, status int, notice, problem string) error {
	if v.Preview != nil {
		v.More = v.Preview.Count - len(v.Preview.Changes)
	}
	return p.render(status, view{Title: "Retarget", Notice: notice, Error: problem, Page: v}, "retarget")
}

// retarget does a step of a mass retarget: a preview (the API's dry
// run), or, from the preview's confirm form, the change itself on
// condition that it changes what the preview showed (its token).
func (p *page) retarget() error {
	f := p.r.PostForm
	in := api.RetargetRequest{From: strings.TrimSpace(f.Get("from")), To: strings.TrimSpace(f.Get("to")), Prefix: strings.TrimSpace(f.Get("prefix"))}
	v := retargetView{In: in}
	switch f.Get("step") {
	case "preview":
		in.DryRun = true
	case "apply":
		if in.Token = f.Get("token"); in.Token == "" {
			return p.retargetForm(v, http.StatusBadRequest, "", "Preview the change first, then confirm it.")
		}
	default:
		return p.retargetForm(v, http.StatusBadRequest, "", "Preview the change first, then confirm it.")
	}
	pre, res, err := p.c.api.Retarget(p.r.Context(), p.site, p.sess.key, in)
	status := api.ErrorStatus(err)
	switch {
	case err != nil && status == http.StatusPreconditionFailed:
		// Show what it would change now, to confirm again.
		in.DryRun, in.Token = true, ""
		v.Preview, _, err = p.c.api.Retarget(p.r.Context(), p.site, p.sess.key, in)
		if err != nil {
			return p.retargetForm(v, api.ErrorStatus(err), "", err.Error())
		}
		return p.retargetForm(v, status, "", "The identifiers to change have changed since the preview, so nothing was changed. This is what the change would do now: confirm again, or change the form.")
	case err != nil:
		return p.retargetForm(v, status, "", err.Error())
	case pre != nil:
		return p.retargetForm(retargetView{In: in, Preview: pre}, http.StatusOK, "", "")
	}
	v.Result = res
	return p.retargetForm(v, http.StatusOK, "Changed "+count(res.Count, "target")+" in batch "+strconv.FormatUint(res.Batch, 10)+".", "")
}

// undo undoes a batch of changes: what a retarget changed and was not
// changed again since gets its old target back.
func (p *page) undo() error {
	batch, err := strconv.ParseUint(p.r.PostForm.Get("batch"), 10, 64)
	if err != nil {
		return p.retargetForm(retargetView{}, http.StatusBadRequest, "", "The form names no batch to undo.")
	}
	res, err := p.c.api.Undo(p.r.Context(), p.site, p.sess.key, batch)
	if err != nil {
		return p.retargetForm(retargetView{}, api.ErrorStatus(err), "", err.Error())
	}
	return p.retargetForm(retargetView{Undone: res}, http.StatusOK, "Undid batch "+strconv.FormatUint(batch, 10)+": "+count(res.Restored, "target")+" restored.", "")
}

// count writes n nouns, in the singular for one.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
