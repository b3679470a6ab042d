package console

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/visible"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// editView is what the edit form shows.
type editView struct {
	ID          string
	Version     uint64 // 0 when not stored yet
	Target      string
	Encoded     bool // the stored target had characters that do not show as themselves, percent-encoded in Target
	Status      int
	Passthrough bool
	Meta        []metaRow
	Statuses    []statusChoice
}

// statusChoice is one answer an identifier may give, in the form.
type statusChoice struct {
	Code  int
	Label string
}

// statuses are the answers the edit form offers.
var statuses = []statusChoice{
	{302, "302 Found: redirect to the target (the usual)"},
	{303, "303 See Other: redirect to the target"},
	{307, "307 Temporary Redirect: redirect, keeping the method"},
	{200, "200: serve the target in place (a path of this site)"},
}

// blankMetaRows is how many empty metadata rows the form offers for
// new elements.
const blankMetaRows = 3

// editForm shows the edit form of the identifier at raw: its binding as
// stored, or in, the values a refused form held; problem says why, and
// status is the answer's.
func (p *page) editForm(raw string, status int, problem string, in *editView) error {
	id := unescapeID(raw)
	if why := p.mayNotWrite(id); why != "" {
		return p.problem(http.StatusForbidden, why)
	}
	v := in
	if v == nil {
		rec, err := p.get(id)
		switch {
		case errors.Is(err, errNotStored):
			v = &editView{ID: id, Status: http.StatusFound, Passthrough: true}
		case err != nil:
			return p.fail(err)
		case rec.Binding.State() == store.StateWithdrawn:
			return p.problem(http.StatusConflict, id+" is withdrawn: a withdrawn identifier never changes.")
		default:
			v = viewOf(rec.Binding)
		}
	}
	for range blankMetaRows {
		v.Meta = append(v.Meta, metaRow{})
	}
	for i := range v.Meta {
		v.Meta[i].N = i
	}
	v.Statuses = statuses
	return p.render(status, view{Title: "Edit " + v.ID, Error: problem, Page: v}, "edit")
}

// viewOf returns the edit form of a binding as stored; a target stored
// with characters that do not show as themselves, which the API no longer
// binds, percent-encoded, the same address that a redirect sends.
func viewOf(b *store.Binding) *editView {
	target := visible.PercentEncode(b.Target)
	v := &editView{ID: b.Key, Version: b.Version, Target: target, Encoded: target != b.Target, Status: b.Status, Passthrough: b.Passthrough, Meta: sortedMeta(b.Meta)}
	if b.State() == store.StateMinted {
		v.Status, v.Passthrough = http.StatusFound, true
	}
	return v
}

// edit saves the edit form: as a merge patch of what the form changed,
// on condition that the binding is still the one the form showed.
func (p *page) edit(raw string) error {
	id := unescapeID(raw)
	in, err := readEditForm(id, p.r)
	if err != nil {
		return p.editForm(raw, http.StatusBadRequest, err.Error(), in)
	}
	rec, err := p.get(id)
	var cur *store.Binding
	switch {
	case errors.Is(err, errNotStored):
	case err != nil:
		return p.fail(err)
	default:
		cur = rec.Binding
	}
	if (cur == nil && in.Version != 0) || (cur != nil && cur.Version != in.Version) {
		return p.editForm(raw, http.StatusPreconditionFailed, "It was changed by someone else since you opened this form: the form now shows it as it is. Make your change again.", nil)
	}
	patch := mergePatch(cur, in)
	if patch.Empty() {
		http.Redirect(p.w, p.r, p.c.base+"id/"+escapeID(id)+"?done=unchanged", http.StatusSeeOther)
		return nil
	}
	cd := api.Conditions{IfNoneMatch: []string{"*"}}
	if cur != nil {
		cd = api.Conditions{IfMatch: []string{`"` + strconv.FormatUint(cur.Version, 10) + `"`}}
	}
	if _, err := p.c.api.Patch(p.r.Context(), p.site, p.sess.key, escapeID(id), patch, cd); err != nil {
		return p.editForm(raw, api.ErrorStatus(err), err.Error(), in)
	}
	http.Redirect(p.w, p.r, p.c.base+"id/"+escapeID(id)+"?done=saved", http.StatusSeeOther)
	return nil
}

// readEditForm reads a posted edit form. It returns what the form held
// even when it refuses it, to show it again.
func readEditForm(id string, r *http.Request) (*editView, error) {
	f := r.PostForm
	in := &editView{ID: id, Target: strings.TrimSpace(f.Get("target")), Passthrough: f.Get("passthrough") != ""}
	var err error
	if in.Version, err = strconv.ParseUint(f.Get("version"), 10, 64); err != nil {
		return in, errors.New("the form has no version: open it again from the identifier's page")
	}
	if in.Status, err = strconv.Atoi(f.Get("status")); err != nil {
		return in, errors.New("choose what the identifier answers")
	}
	rows, _ := strconv.Atoi(f.Get("meta_rows"))
	seen := map[string]bool{}
	for i := range min(rows, table.MaxMetaKeys+blankMetaRows) {
		name := strings.TrimSpace(f.Get("meta_name_" + strconv.Itoa(i)))
		value := f.Get("meta_value_" + strconv.Itoa(i))
		if name == "" && value == "" {
			continue
		}
		in.Meta = append(in.Meta, metaRow{Name: name, Value: value})
		switch {
		case name == "":
			err = errors.New("a metadata value has no name")
		case seen[name]:
			err = errors.New("the metadata name " + name + " is given twice")
		}
		seen[name] = true
	}
	return in, err
}

// mergePatch returns the merge patch that makes cur (nil when there is
// none) what the form holds: only what changed, a metadata element whose
// value was emptied or whose row was removed removed.
func mergePatch(cur *store.Binding, in *editView) *api.BindPatch {
	if cur == nil {
		cur = &store.Binding{}
	}
	patch := &api.BindPatch{}
	if in.Target != cur.Target {
		patch.SetTarget, patch.To.Target = true, in.Target
	}
	if in.Status != cur.Status {
		patch.SetStatus, patch.To.Status = true, in.Status
	}
	if in.Passthrough != cur.Passthrough || cur.State() == store.StateMinted {
		pass := in.Passthrough
		patch.SetPassthrough, patch.To.Passthrough = true, &pass
	}
	meta := map[string]*string{}
	kept := map[string]bool{}
	for _, m := range in.Meta {
		if m.Value == "" {
			continue
		}
		kept[m.Name] = true
		if v, ok := cur.Meta[m.Name]; !ok || v != m.Value {
			meta[m.Name] = &m.Value
		}
	}
	for name := range cur.Meta {
		if !kept[name] {
			meta[name] = nil
		}
	}
	if len(meta) > 0 {
		patch.SetMeta, patch.Meta = true, meta
	}
	return patch
}
