package resolve

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-ark/caddy-ark/internal/urlpath"
	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/table"
)

// PlaceholderPrefix starts every placeholder this handler provides.
const PlaceholderPrefix = "http.ark."

// templatePlaceholders are the {http.ark.*} names a template's target may
// use: all but target and outcome, which the expansion itself decides.
var templatePlaceholders = []string{"id", "naan", "name", "shoulder", "blade", "suffix", "via"}

// Template resolves every ARK under a shoulder, or under a whole NAAN, by
// building its target from the ARK's parts.
type Template struct {
	// The ARKs the template covers: a shoulder ("ark:12345/t3", every ARK
	// whose Name starts with "t3") or a bare NAAN ("ark:12345"). The longest
	// matching shoulder wins; NAAN templates come after all shoulders.
	Prefix string `json:"prefix"`

	// The target, with placeholders such as {http.ark.blade}: a path
	// starting with "/" (served in place) or an absolute http(s) URL
	// (redirected to). The scheme and host of a URL are fixed: they cannot
	// hold placeholders. When the target does not use {http.ark.suffix}, the
	// ARK's qualifier is appended to it, as with table passthrough.
	Target string `json:"target"`

	// The HTTP status of the answer, as for an Entry: 302 (the default for
	// URLs), 303, 307, or 200 (the default for local paths).
	Status int `json:"status,omitempty"`
}

// CompiledTemplate is a Template compiled for matching.
type CompiledTemplate struct {
	naan     string
	shoulder string // "" for a NAAN template
	target   string
	origin   string // "scheme://host/" of a URL target, "/" of a path: every expansion starts with it
	status   int
	Local    bool
	suffixed bool // the target uses {http.ark.suffix}
	// landingPage: served in place by a landing page (see
	// urlpath.LandingPage), by the target's extension.
	landingPage bool
	pieces      []TemplatePiece // target, split into text and placeholders
}

// TemplatePiece is a run of a template's target: text the operator wrote,
// or a placeholder, whose value comes from the request.
type TemplatePiece struct {
	Text        string
	Placeholder bool
}

// SplitPlaceholders splits a target into text and "{...}" placeholders as
// Caddy's replacer reads them: a brace escaped with a backslash ("\{",
// "\}") is text, without its backslash.
func SplitPlaceholders(target string) []TemplatePiece {
	var pieces []TemplatePiece
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			pieces = append(pieces, TemplatePiece{Text: text.String()})
			text.Reset()
		}
	}
	for i := 0; i < len(target); i++ {
		c := target[i]
		if c == '\\' && i+1 < len(target) && (target[i+1] == '{' || target[i+1] == '}') {
			text.WriteByte(target[i+1])
			i++
			continue
		}
		if end := strings.IndexByte(target[i:], '}'); c == '{' && end >= 0 {
			flush()
			pieces = append(pieces, TemplatePiece{Text: target[i : i+end+1], Placeholder: true})
			i += end
			continue
		}
		text.WriteByte(c)
	}
	flush()
	return pieces
}

// Expand builds the target for a request: the placeholders replaced by
// repl, and suffix, the ARK's qualifier, appended to the path unless the
// target places it itself (see placesQualifier). The result is checked by the
// rule of segments.go.
func (t *CompiledTemplate) Expand(repl *caddy.Replacer, suffix string) (string, error) {
	var b urlpath.Built
	for _, p := range t.pieces {
		if p.Placeholder {
			b.Add(repl.ReplaceAll(p.Text, ""), true)
		} else {
			b.Add(p.Text, false)
		}
	}
	if !t.suffixed && suffix != "" {
		b.InsertSuffix(suffix)
	}
	if err := b.Check(); err != nil {
		return "", err
	}
	target := b.String()
	if !t.keepsOrigin(target) {
		return "", errLeavesOrigin
	}
	if _, err := url.Parse(target); err != nil {
		return "", errNotURL
	}
	return target, nil
}

// placesQualifier reports whether a template's target places the ARK's
// qualifier itself: with {http.ark.suffix}, or within the whole identifier,
// {http.ark.id}. Appending it too would repeat it.
func placesQualifier(target string) bool {
	return strings.Contains(target, "{http.ark.suffix}") || strings.Contains(target, "{http.ark.id}")
}

// errLeavesOrigin refuses an expansion that would change a URL's scheme or
// host, or make a local path name another host.
var errLeavesOrigin = errors.New("the target built from the request would leave the template's scheme and host")

// errNotURL refuses an expansion that is not a URL, such as one holding a
// "%" that starts no percent-encoding.
var errNotURL = errors.New("the target built from the request is not a valid URL")

// Compile checks the template and returns it ready to match and expand.
func (t Template) Compile() (CompiledTemplate, error) {
	naan, shoulder, err := normalize.ParsePrefix(t.Prefix)
	if err != nil {
		return CompiledTemplate{}, err
	}
	c := CompiledTemplate{naan: naan, shoulder: shoulder, target: urlpath.WithRootPath(t.Target), origin: "/",
		Local: strings.HasPrefix(t.Target, "/"), suffixed: placesQualifier(t.Target)}
	c.pieces = SplitPlaceholders(c.target)
	for _, p := range c.pieces {
		if name, ok := strings.CutPrefix(strings.Trim(p.Text, "{}"), PlaceholderPrefix); p.Placeholder && ok && !slices.Contains(templatePlaceholders, name) {
			return CompiledTemplate{}, fmt.Errorf("target %q: unknown placeholder {%s%s}; a template may use {http.ark.%s}", t.Target, PlaceholderPrefix, name, strings.Join(templatePlaceholders, "}, {http.ark."))
		}
	}
	if !c.Local {
		scheme, rest, _ := strings.Cut(c.target, "://")
		host := rest[:max(strings.IndexAny(rest, "/?#"), 0)]
		if host == "" || strings.ContainsAny(host, "{}@") {
			return CompiledTemplate{}, fmt.Errorf("target %q: the scheme and host must be written out, without placeholders", t.Target)
		}
		c.origin = scheme + "://" + host + "/"
	}
	if c.status, err = table.EntryStatus(t.Target, t.Status); err != nil {
		return CompiledTemplate{}, err
	}
	if c.status == 410 {
		return CompiledTemplate{}, errors.New("a template cannot answer 410; withdraw identifiers in the table")
	}
	if c.status == http.StatusOK {
		var fixed strings.Builder // the target without its placeholders, for its extension
		for _, p := range c.pieces {
			if !p.Placeholder {
				fixed.WriteString(p.Text)
			}
		}
		c.landingPage = urlpath.LandingPage(fixed.String())
	}
	return c, nil
}

// keepsOrigin reports whether target, expanded from the template with
// request data, still starts with the template's scheme and host (URL
// targets) or names a path on this site and not another host ("//host").
func (t *CompiledTemplate) keepsOrigin(target string) bool {
	return strings.HasPrefix(target, t.origin) && !(t.Local && (strings.HasPrefix(target, "//") || strings.HasPrefix(target, "/\\")))
}

// matches reports whether the template covers a.
func (t *CompiledTemplate) matches(a normalize.ARK) bool {
	return a.NAAN() == t.naan && strings.HasPrefix(a.Name(), t.shoulder)
}

// sortTemplates orders templates for matching: shoulders before NAANs,
// longer shoulders first, otherwise as configured.
func sortTemplates(ts []CompiledTemplate) {
	slices.SortStableFunc(ts, func(a, b CompiledTemplate) int { return len(b.shoulder) - len(a.shoulder) })
}
