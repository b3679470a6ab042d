package console

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/sameorigin"
)

// Console is the web console of one API, as one configuration loads it.
type Console struct {
	api      *api.API
	name     string // the same for the console from one reload to the next (New)
	secret   []byte
	length   time.Duration // of a session
	base     string        // the path of the front page: <api prefix>/ui/
	throttle *throttle

	keySince map[string]time.Time // by key name: since when the console has had it (keylife.go)
	held     []string             // the keys' lives it holds
	release  sync.Once
}

// New returns the console of a, which is provisioned and has a UI; name
// tells it from the process's other consoles and stays the same for it
// from one reload to the next. Close lets go of what it holds.
func New(a *api.API, name string) (*Console, error) {
	if a.UI == nil {
		return nil, errors.New("api: no ui configured")
	}
	c := &Console{api: a, name: name, length: a.UI.SessionLength(), base: a.Prefix + "/ui/", throttle: newThrottle()}
	if a.UI.SecretFile == "" {
		c.secret = processSecret()
	} else {
		var err error
		if c.secret, err = readSecret(a.UI.SecretFile); err != nil {
			return nil, err
		}
	}
	c.holdKeys()
	return c, nil
}

// Route is the API route under which the console answers.
const Route = "ui"

// securityHeaders are sent with every answer of the console: nothing is
// loaded but the console's own style sheet, its pages are never framed,
// cached or referred to elsewhere, and forms post only to the console.
var securityHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
	"X-Frame-Options":         "DENY",
	"X-Content-Type-Options":  "nosniff",
	"Referrer-Policy":         "same-origin",
	"Cache-Control":           "no-store",
}

// page is one request to the console.
type page struct {
	c    *Console
	w    http.ResponseWriter
	r    *http.Request
	site api.Site
	sess *session // nil until signed in
}

// Serve answers a request for the console of site s; rest is the path
// after <api prefix>/ui/, escaped.
func (c *Console) Serve(w http.ResponseWriter, r *http.Request, rest string, s api.Site) error {
	for k, v := range securityHeaders {
		w.Header().Set(k, v)
	}
	if r.URL.Path == strings.TrimSuffix(c.base, "/") {
		http.Redirect(w, r, c.base, http.StatusPermanentRedirect)
		return nil
	}
	name, arg, _ := strings.Cut(rest, "/")
	p := &page{c: c, w: w, r: r, site: s}
	switch name {
	case "console.css":
		return p.only(arg == "", http.MethodGet, func() error { return serveStyle(w) })
	}
	who, isPerson, err := c.api.Person(r)
	switch {
	case isPerson && err != nil:
		return p.problem(api.ErrorStatus(err), err.Error()+".")
	case isPerson && name == "signin":
		http.Redirect(w, r, c.base, http.StatusSeeOther)
		return nil
	case isPerson:
		p.sess = c.personSession(who)
	case name == "signin":
		return p.signin()
	default:
		if p.sess = c.session(r, s); p.sess == nil {
			return p.signedOut()
		}
	}
	if r.Method == http.MethodPost {
		if ok, err := p.checkPost(name); !ok {
			return err
		}
	}
	if why := p.mayNotChange(name); why != "" {
		return p.problem(http.StatusForbidden, why+".")
	}
	switch name {
	case "":
		return p.only(arg == "", http.MethodGet, p.home)
	case "open":
		return p.only(arg == "", http.MethodGet, p.open)
	case "search":
		return p.only(arg == "", http.MethodGet, p.search)
	case "changes":
		return p.only(arg == "", http.MethodGet, p.changes)
	case "export":
		return p.only(arg == "", http.MethodGet, p.export)
	case "id":
		return p.only(arg != "", http.MethodGet, func() error { return p.identifier(arg) })
	case "edit":
		return p.form(arg != "", func() error { return p.editForm(arg, http.StatusOK, "", nil) }, func() error { return p.edit(arg) })
	case "withdraw":
		return p.form(arg != "", func() error { return p.withdrawForm(arg, http.StatusOK, "", "") }, func() error { return p.withdraw(arg) })
	case "mint":
		return p.form(arg == "", func() error { return p.mintForm(mintInput{N: "1"}, "", 0) }, p.mint)
	case "retarget":
		return p.form(arg == "", func() error { return p.retargetForm(retargetView{}, http.StatusOK, "", "") }, p.retarget)
	case "undo":
		return p.only(arg == "", http.MethodPost, p.undo)
	case "import":
		return p.form(arg == "", func() error { return p.importForm("", 0) }, p.importFile)
	case "keys":
		return p.form(arg == "", func() error { return p.keysPage(keysInput{}, http.StatusOK, "", "", nil) }, p.keys)
	case "signout":
		if p.sess.person {
			return p.problem(http.StatusConflict, "You are signed in through the site's own sign-in, not with a key: the console cannot sign you out; close the browser or sign out of the site.")
		}
		return p.only(arg == "", http.MethodPost, p.signout)
	}
	return p.notFound()
}

// only runs serve when the page exists (exists) and r's method is method
// (GET takes HEAD too).
func (p *page) only(exists bool, method string, serve func() error) error {
	switch {
	case !exists:
		return p.notFound()
	case p.r.Method == method, method == http.MethodGet && p.r.Method == http.MethodHead:
		return serve()
	}
	p.w.Header().Set("Allow", method)
	return p.problem(http.StatusMethodNotAllowed, "This page takes "+method+", not "+p.r.Method+".")
}

// form serves a page that shows a form on GET and does it on POST.
func (p *page) form(exists bool, show, do func() error) error {
	switch {
	case !exists:
		return p.notFound()
	case p.r.Method == http.MethodGet, p.r.Method == http.MethodHead:
		return show()
	case p.r.Method == http.MethodPost:
		return do()
	}
	p.w.Header().Set("Allow", "GET, POST")
	return p.problem(http.StatusMethodNotAllowed, "This page takes GET and POST, not "+p.r.Method+".")
}

// maxForm bounds the body of a form that is not an upload.
const maxForm = 2 * api.MaxBindBody

// checkPost refuses a POST that may not come from the console's own page
// in the signed-in browser: from another site, or without the form token
// of the session. An upload's token is checked as its body is read.
func (p *page) checkPost(name string) (bool, error) {
	if sameorigin.Check(p.r) != nil {
		return false, p.problem(http.StatusForbidden, "This form was sent from another site: the console refuses it.")
	}
	if strings.HasPrefix(p.r.Header.Get("Content-Type"), "multipart/form-data") && name == "import" {
		return true, nil
	}
	p.r.Body = http.MaxBytesReader(p.w, p.r.Body, maxForm)
	if err := p.r.ParseForm(); err != nil {
		return false, p.problem(http.StatusBadRequest, "The form could not be read: "+err.Error())
	}
	if !p.c.validToken(p.sess, p.r.PostForm.Get(csrfField)) {
		return false, p.problem(http.StatusForbidden, "This form has no valid token (it was not sent from this console in this session): nothing was done.")
	}
	return true, nil
}

// notFound answers that the console has no such page.
func (p *page) notFound() error {
	return p.problem(http.StatusNotFound, "The console has no such page.")
}

// open answers the front page's "Open an identifier" form: its page.
func (p *page) open() error {
	id := strings.TrimSpace(p.r.URL.Query().Get("id"))
	if id == "" {
		return p.problem(http.StatusBadRequest, "Give an identifier to open, such as ark:12345/x5wf6789.")
	}
	http.Redirect(p.w, p.r, p.c.base+"id/"+escapeID(id), http.StatusSeeOther)
	return nil
}
