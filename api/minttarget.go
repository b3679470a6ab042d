package api

import (
	"fmt"
	"slices"
	"strings"

	"github.com/caddy-ark/caddy-ark/resolve"
)

// mintPlaceholders are the placeholders the target of a mint-and-bind may
// use, written "{name}" or, as in a template, "{http.ark.name}": the parts
// of the new identifier, known when it is minted. For ark:12345/x54xz321g
// minted under ark:12345/x5: {id} ark:12345/x54xz321g, {naan} 12345,
// {name} x54xz321g, {shoulder} x5, {blade} 4xz321g.
var mintPlaceholders = []string{"id", "naan", "name", "shoulder", "blade"}

// requestPlaceholders are the {http.ark.*} placeholders whose value comes
// from a request being resolved, which a mint target cannot use: the
// target is stored once, when the name is minted. {suffix}, the request's
// qualifier, is appended to a stored target by passthrough already.
var requestPlaceholders = []string{"suffix", "via", "target", "outcome"}

// mintTarget is the target of a mint-and-bind, split into text and
// placeholders as a template's target is.
type mintTarget []resolve.TemplatePiece

// parseMintTarget reads the target of a mint-and-bind, refusing a
// placeholder it cannot expand: one that is unknown, or whose value only
// a request has.
func parseMintTarget(target string) (mintTarget, error) {
	pieces := resolve.SplitPlaceholders(target)
	for i, p := range pieces {
		if !p.Placeholder {
			continue
		}
		name := strings.TrimPrefix(p.Text[1:len(p.Text)-1], resolve.PlaceholderPrefix)
		switch {
		case slices.Contains(mintPlaceholders, name):
			pieces[i].Text = name
		case slices.Contains(requestPlaceholders, name):
			return nil, fmt.Errorf("target %q: placeholder %s has a value only when a request resolves the identifier, but a minted target is stored when it is minted", target, p.Text)
		default:
			return nil, fmt.Errorf("target %q: unknown placeholder %s; a minted target may use {%s} (\\{ and \\} are braces)", target, p.Text, strings.Join(mintPlaceholders, "}, {"))
		}
	}
	return pieces, nil
}

// expand returns the target of key, minted under the shoulder sh of naan.
func (t mintTarget) expand(key, naan, sh string) string {
	name := strings.TrimPrefix(key, "ark:"+naan+"/")
	values := map[string]string{"id": key, "naan": naan, "name": name, "shoulder": sh, "blade": strings.TrimPrefix(name, sh)}
	var b strings.Builder
	for _, p := range t {
		if p.Placeholder {
			b.WriteString(values[p.Text])
		} else {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
