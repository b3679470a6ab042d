package console

import (
	"cmp"
	"errors"
	"fmt"
	"html/template"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/visible"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/targets"
)

// errNotStored is a GET id/<id> that the API answered 404: the
// identifier is neither minted nor bound.
var errNotStored = errors.New("not minted or bound")

// get reads the binding and history of id through the API. A refusal is
// returned as a *refusal.
func (p *page) get(id string) (*api.Record, error) {
	rec, err := p.c.api.Get(p.r.Context(), p.site, p.sess.key, escapeID(id))
	switch {
	case err != nil && api.ErrorStatus(err) == http.StatusNotFound:
		return nil, errNotStored
	case err != nil:
		return nil, refused(err)
	}
	return rec, nil
}

// refusal is the API refusing a request, with the status and reason it
// gave.
type refusal struct {
	status int
	msg    string
}

func (r *refusal) Error() string { return r.msg }

// refused returns err, an error of the API, as a refusal.
func refused(err error) *refusal { return &refusal{api.ErrorStatus(err), err.Error()} }

// fail answers with err: a refusal of the API, or the API failing.
func (p *page) fail(err error) error {
	var ref *refusal
	if errors.As(err, &ref) {
		return p.problem(ref.status, ref.msg)
	}
	return p.problem(http.StatusServiceUnavailable, err.Error())
}

// identifierView is what the page of one identifier shows.
type identifierView struct {
	ID       string
	B        *store.Binding
	State    string
	Meta     []metaRow
	History  []changeView
	Info     string // the path of its ?info page
	Table    string // the table file or map that assigns it, read only here; "" for the store's
	MayWrite bool
	Check    *targetCheckView // nil when its target has not been checked
}

// targetCheckView is what the checks of an identifier's target found
// (docs/targets.md).
type targetCheckView struct {
	State    string
	Code     string
	Failures int
	Checked  string
	Since    string
	Final    string // where the last check ended, when not at the target
	Problem  string // why the checks could not be read
}

// metaRow is one metadata element.
type metaRow struct {
	N           int
	Name, Value string
}

// changeView is one change of the history, described.
type changeView struct {
	Seq  uint64
	Time string
	By   string
	What []template.HTML
}

// notices are what the page shown after a change says was done, by the
// done parameter of its address.
var notices = map[string]string{
	"saved":     "Saved.",
	"unchanged": "Nothing was changed: the form held the values the identifier has.",
	"withdrawn": "Withdrawn.",
}

// identifier answers the page of one identifier.
func (p *page) identifier(raw string) error {
	id := unescapeID(raw)
	rec, err := p.get(id)
	if errors.Is(err, errNotStored) {
		return p.render(http.StatusNotFound, view{Title: id, Error: id + " is not minted or bound in the store.", Page: identifierView{ID: id, MayWrite: p.mayNotWrite(id) == ""}}, "identifier")
	}
	if v := p.fromTable(id, err); v != nil {
		return p.render(http.StatusOK, view{Title: v.ID, Page: *v}, "identifier")
	}
	if err != nil {
		return p.fail(err)
	}
	b := rec.Binding
	v := identifierView{ID: b.Key, B: b, State: state(b), Meta: sortedMeta(b.Meta), Info: "/" + b.Key + "?info", MayWrite: p.sess.key.MayWrite(b.Key)}
	v.Check = p.targetCheck(b)
	for i := len(rec.History) - 1; i >= 0; i-- {
		ch := rec.History[i]
		v.History = append(v.History, changeView{Seq: ch.Seq, Time: when(ch.Time), By: ch.By, What: describe(ch.Old, ch.New)})
	}
	return p.render(http.StatusOK, view{Title: b.Key, Notice: notices[p.r.URL.Query().Get("done")], Page: v}, "identifier")
}

// targetCheck returns what the checks of b's target found, when they
// have checked it: read from the store as ?info reads it, for a binding
// the API has just given the key to read.
func (p *page) targetCheck(b *store.Binding) *targetCheckView {
	st := p.site.Store()
	if st == nil || !targets.Checkable(b.Target, b.Status) {
		return nil
	}
	c, err := targets.Lookup(p.r.Context(), st, b.Target)
	switch {
	case err != nil:
		return &targetCheckView{Problem: "the store could not be read: " + err.Error()}
	case c == nil || c.Checked.IsZero():
		return nil
	}
	v := &targetCheckView{State: string(c.State), Code: c.Code, Failures: c.Failures, Checked: when(c.Checked), Since: when(c.Since)}
	if c.Final != "" && c.Final != b.Target {
		v.Final = c.Final
	}
	return v
}

// state says in words what an identifier answers.
func state(b *store.Binding) string {
	switch {
	case b.State() == store.StateMinted:
		return "minted, not bound yet"
	case b.State() == store.StateWithdrawn:
		return "withdrawn (410)"
	}
	if reason, ok := b.Unavailable(); ok {
		return "unavailable (410, EZID's _status; the target is kept): " + cmp.Or(reason, "no reason given")
	}
	switch {
	case b.Status == http.StatusOK:
		return "served in place (200)"
	}
	return fmt.Sprintf("redirects (%d)", b.Status)
}

// when writes a time of the history, in UTC to the second.
func when(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

// sortedMeta returns meta's elements by name.
func sortedMeta(meta map[string]string) []metaRow {
	var rows []metaRow
	for i, name := range slices.Sorted(maps.Keys(meta)) {
		rows = append(rows, metaRow{N: i, Name: name, Value: meta[name]})
	}
	return rows
}

// describe says what a change of the history did, as HTML: the targets,
// values and reasons in it shown by the rule of visible.HTML, each
// isolated by itself.
func describe(old, cur *store.Binding) []template.HTML {
	switch {
	case cur == nil:
		return []template.HTML{"removed"}
	case old == nil && cur.State() == store.StateMinted:
		return []template.HTML{"minted"}
	case cur.State() == store.StateWithdrawn && (old == nil || old.State() != store.StateWithdrawn):
		return []template.HTML{"withdrawn: " + shown(cur.Reason)}
	case old == nil || old.State() == store.StateMinted:
		return append([]template.HTML{template.HTML(fmt.Sprintf("bound to %s (%d)", shown(cur.Target), cur.Status))}, metaChanges(nil, cur.Meta)...)
	}
	var what []template.HTML
	if old.Target != cur.Target {
		what = append(what, "target "+shown(old.Target)+" → "+shown(cur.Target))
	}
	if old.Status != cur.Status {
		what = append(what, template.HTML(fmt.Sprintf("status %d → %d", old.Status, cur.Status)))
	}
	if old.Passthrough != cur.Passthrough {
		what = append(what, template.HTML(fmt.Sprintf("passthrough %t → %t", old.Passthrough, cur.Passthrough)))
	}
	what = append(what, metaChanges(old.Meta, cur.Meta)...)
	if len(what) == 0 {
		what = []template.HTML{"written again, unchanged"}
	}
	return what
}

// metaChanges says which metadata elements a change set and removed, as
// HTML.
func metaChanges(old, cur map[string]string) []template.HTML {
	var what []template.HTML
	for _, name := range slices.Sorted(maps.Keys(cur)) {
		if v, ok := old[name]; !ok || v != cur[name] {
			what = append(what, shown(name)+": "+shown(cur[name]))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(old)) {
		if _, ok := cur[name]; !ok {
			what = append(what, shown(name)+" removed")
		}
	}
	return what
}

// shown returns s as HTML text by the rule of the template function
// visible: escaped, and, when it is not plain ASCII, isolated with each
// character that does not show as itself marked.
func shown(s string) template.HTML {
	if h, ok := visible.HTML(s).(template.HTML); ok {
		return h
	}
	return template.HTML(template.HTMLEscapeString(s))
}

// escapeID escapes an identifier for a path, as a client of the API
// would: "?", "#" and "%" are escaped, "/" and ":" kept. The API's
// functions take identifiers so escaped, as its paths have them.
func escapeID(id string) string {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("%?#\"<>\\^`{|}", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// unescapeID returns the identifier of a console path, its escapes
// decoded; a path with a bad escape is left as it is, for the API to
// refuse.
func unescapeID(raw string) string {
	if id, err := url.PathUnescape(raw); err == nil {
		return id
	}
	return raw
}
