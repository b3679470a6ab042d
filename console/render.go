package console

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"net/http"
	"strings"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/visible"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static/console.css
var style []byte

// view is what every page's template gets: the layout's fields, and the
// page's own in Page.
type view struct {
	Title  string
	Base   string // the front page's path, ending in /
	Key    string // the signed-in key's name, or "person:<name>"; "" on the sign-in page
	Person bool   // signed in as a person, through the site's authentication
	Admin  bool   // whether the signed-in key or person has the admin scope
	// MayMint and MayChange say whether the menu offers Mint, and Retarget
	// and Import: whether the signed-in key or person may use them
	// (mayNotChange).
	MayMint   bool
	MayChange bool
	CSRF      string // the form token of the session
	Notice    string // what was just done
	Error     string // why it was not
	Page      any
}

// funcs are the functions the templates use.
var funcs = template.FuncMap{
	// idpath is an identifier escaped for the path of a console page.
	"idpath": escapeID,
	// inc counts from 1 where a template ranges from 0.
	"inc": func(i int) int { return i + 1 },
	// add and sub place the chart's labels.
	"add": func(a, b int) int { return a + b },
	"sub": func(a, b int) int { return a - b },
	// visible shows an identifier, a target, a value or a message in an
	// element's text, and visibleText in the <title>, by the rule ?info
	// shows them by: each character that does not show as itself marked
	// (visible.Invisible). hidden reports whether a form field's value has
	// one, which the form then shows beside it.
	"visible":     visible.HTML,
	"visibleText": visible.Text,
	"hidden":      func(s string) bool { return strings.ContainsFunc(s, visible.Invisible) },
	// writer shows the name of a key, or of a writer of the history.
	"writer": writerHTML,
}

// writerHTML shows name, a key's name or a writer's ("person:<name>"): a
// person's by the rule of visible, a key's with every character outside
// printable ASCII marked (visible.ASCIIHTML), since a key made before
// key names were limited to ASCII, or configured so, could otherwise look
// like another ("x5\u0435d" like "x5ed").
func writerHTML(name string) any {
	if strings.HasPrefix(name, api.PersonPrefix) {
		return visible.HTML(name)
	}
	return visible.ASCIIHTML(name)
}

// views are the pages' templates, each with the layout, by name.
var views = parseViews()

// parseViews parses each page's template with the layout.
func parseViews() map[string]*template.Template {
	layout := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFiles, "templates/layout.html"))
	pages, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		panic(err)
	}
	views := map[string]*template.Template{}
	for _, file := range pages {
		name := strings.TrimSuffix(strings.TrimPrefix(file, "templates/"), ".html")
		if name == "layout" {
			continue
		}
		views[name] = template.Must(template.Must(layout.Clone()).ParseFS(templateFiles, file))
	}
	return views
}

// render answers status with the page named name.
func (p *page) render(status int, v view, name string) error {
	v.Base = p.c.base
	if p.sess != nil {
		v.Key = p.sess.name
		v.Person = p.sess.person
		v.Admin = p.sess.key.IsAdmin()
		v.MayMint = p.mayMintSome()
		v.MayChange = p.sess.key.MayWriteSome()
		v.CSRF = p.c.csrfToken(p.sess)
	}
	var b bytes.Buffer
	if err := views[name].ExecuteTemplate(&b, "layout.html", v); err != nil {
		return err
	}
	p.w.Header().Set("Content-Type", "text/html; charset=utf-8")
	p.w.WriteHeader(status)
	_, err := p.w.Write(b.Bytes())
	return err
}

// problem answers status with a page that says msg.
func (p *page) problem(status int, msg string) error {
	return p.render(status, view{Title: http.StatusText(status), Error: msg}, "problem")
}

// serveStyle answers the style sheet.
func serveStyle(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "max-age=3600")
	_, err := w.Write(style)
	return err
}
