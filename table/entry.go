package table

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/caddy-ark/caddy-ark/internal/urlpath"
	"github.com/caddy-ark/caddy-ark/normalize"
)

// Entry assigns an identifier to its content. Table files hold a list of
// them; the handler's own "entries" hold more.
type Entry struct {
	// The identifier, an ARK or a URN, in any equivalent spelling
	// ("ark:/12345/x5-wf6789" and "ark:12345/x5wf6789" are the same entry).
	// It has no query or fragment.
	ID string `json:"id"`

	// Where the identifier resolves: a path on this site starting with "/"
	// (served in place by the next handler, unless Status asks for a
	// redirect) or an absolute http(s) URL (redirected to). It may be empty
	// only when Status is 410.
	Target string `json:"target,omitempty"`

	// The HTTP status of the answer: 302 (the default for URLs) or 307 for a
	// temporary redirect to the referent, 303 for a redirect to something
	// related to it (a description of a non-information resource), 410 for a
	// withdrawn identifier, or 200 (the default for local paths) to serve in
	// place. Permanent redirects (301, 308) are refused: the location of an
	// identifier's referent is temporary by nature.
	Status int `json:"status,omitempty"`

	// Whether descendants of the identifier (it followed by a qualifier such
	// as "/c2/s4.pdf" or ".en") that have no entry of their own resolve
	// through this one, with the qualifier appended to the target. Default
	// true.
	Passthrough *bool `json:"passthrough,omitempty"`

	// Metadata about the identifier and its referent, served by the ?info
	// inflection: the ERC kernel "who", "what", "when", "where", and
	// "persistence", "variance", "allocated" or any other key.
	Meta map[string]string `json:"meta,omitempty"`

	// Where the entry was written, such as "Caddyfile:12", named by
	// errors about it. The Caddyfile adapter sets it for each map; table
	// files do not use it.
	Source string `json:"source,omitempty"`
}

// Assignment is an Entry compiled for resolution.
type Assignment struct {
	Target      string // path or URL; "" for a withdrawn identifier without one
	Status      int    // the answer: 200 in place, 302/303/307 redirect, 410 gone
	Passthrough bool
	Meta        map[string]string
}

// errPermanentRedirect explains why 301 and 308 are refused everywhere.
var errPermanentRedirect = errors.New("permanent redirects (301, 308) are not allowed: the location of an identifier's referent is temporary by nature; use 302, 303 or 307")

// Compile validates e and returns its key, its NAAN ("" for a URN) and its
// Assignment.
func (e *Entry) Compile() (key, naan string, a Assignment, err error) {
	if err := checkEntryLimits(e); err != nil {
		return "", "", a, err
	}
	if key, naan, err = AssignableKey(e.ID); err != nil {
		return "", "", a, err
	}
	status, err := EntryStatus(e.Target, e.Status)
	if err != nil {
		return "", "", a, err
	}
	for k := range e.Meta {
		if k == "" {
			return "", "", a, errors.New("meta: empty key")
		}
	}
	a = Assignment{Target: urlpath.WithRootPath(e.Target), Status: status, Passthrough: e.Passthrough == nil || *e.Passthrough, Meta: e.Meta}
	return key, naan, a, nil
}

// AssignableKey parses an identifier that a table assigns and returns its
// key and NAAN. It refuses identifiers with a query, URN components or
// fragment, and ARKs under the NAAN reserved for invalid ARKs.
func AssignableKey(raw string) (key, naan string, err error) {
	var full string
	if len(raw) >= 4 && strings.EqualFold(raw[:4], "urn:") {
		u, err := normalize.ParseURN(raw)
		if err != nil {
			return "", "", fmt.Errorf("id %q: %w", raw, err)
		}
		key, full = u.Key(), u.String()
	} else {
		a, err := normalize.ParseARK(raw)
		if err != nil {
			return "", "", fmt.Errorf("id %q: %w", raw, err)
		}
		if a.NAAN() == normalize.InvalidNAAN {
			return "", "", fmt.Errorf("id %q: NAAN %s is reserved for invalid ARKs", raw, normalize.InvalidNAAN)
		}
		key, naan, full = a.Key(), a.NAAN(), a.String()
	}
	if full != key {
		return "", "", fmt.Errorf("id %q: an assigned identifier has no query, URN components or fragment", raw)
	}
	return key, naan, nil
}

// EntryStatus validates a target with its configured status and returns
// the status of the answer.
func EntryStatus(target string, status int) (int, error) {
	switch status {
	case 301, 308:
		return 0, errPermanentRedirect
	case 0, 200, 302, 303, 307, 410:
	default:
		return 0, fmt.Errorf("status %d: use 302, 303, 307, 410, or 200 for a local path", status)
	}
	if target == "" {
		if status == 410 {
			return 410, nil
		}
		return 0, errors.New("target is empty (only a withdrawn entry, status 410, may have none)")
	}
	local, err := checkTarget(target)
	if err != nil {
		return 0, err
	}
	switch {
	case status == 200 && !local:
		return 0, fmt.Errorf("status 200 serves in place, which needs a local path, not the URL %q", target)
	case status != 0:
		return status, nil
	case local:
		return 200, nil
	}
	return 302, nil
}

// checkTarget validates a target and reports whether it is a local path.
func checkTarget(target string) (local bool, err error) {
	if local, ok := plainTarget(target); ok {
		if !local && urlpath.IsSiteHost(plainHost(target)) {
			return false, siteHostError(target)
		}
		return local, nil
	}
	for i := range len(target) {
		if c := target[i]; c <= ' ' || c == 0x7f {
			return false, fmt.Errorf("target %q: control character or space at byte %d", target, i)
		}
	}
	u, err := url.Parse(target)
	if err != nil {
		return false, fmt.Errorf("target %q: %v", target, err)
	}
	switch {
	case strings.HasPrefix(target, "//"):
		return false, fmt.Errorf("target %q: starts with \"//\", which names a host; write the scheme too, or a path with one leading \"/\"", target)
	case strings.HasPrefix(target, "/"):
		if u.Fragment != "" {
			return false, fmt.Errorf("target %q: a local path has no fragment", target)
		}
		return true, nil
	case (u.Scheme == "http" || u.Scheme == "https") && u.Host != "":
		if urlpath.IsSiteHost(u.Hostname()) {
			return false, siteHostError(target)
		}
		return false, nil
	}
	return false, fmt.Errorf("target %q: neither a path starting with \"/\" nor an absolute http(s) URL", target)
}

// siteHostError is why a target naming urlpath.SiteHost is refused.
func siteHostError(target string) error {
	return fmt.Errorf("target %q: the host %s is the target checker's name for the site itself, which no target may name; give a local path starting with \"/\" or a public URL", target, urlpath.SiteHost)
}

// plainHost returns the host of a URL that plainTarget accepted: what
// follows "://" up to the path or the query.
func plainHost(target string) string {
	_, rest, _ := strings.Cut(target, "://")
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		return rest[:i]
	}
	return rest
}

// plainTarget recognizes, without net/url, the targets tables are made of:
// a path starting with a single "/", or "http(s)://" and a host name, each
// followed by unreserved characters, "/" and "?&=;:@,+$!*'()~" and valid
// percent-encodings only. ok is false for anything else, which checkTarget
// then examines in full.
func plainTarget(target string) (local, ok bool) {
	rest := target
	switch {
	case strings.HasPrefix(target, "/") && !strings.HasPrefix(target, "//"):
		local = true
	case strings.HasPrefix(target, "https://"):
		rest = target[len("https://"):]
	case strings.HasPrefix(target, "http://"):
		rest = target[len("http://"):]
	default:
		return false, false
	}
	if !local {
		host := 0
		for host < len(rest) && (isAlnumByte(rest[host]) || rest[host] == '.' || rest[host] == '-') {
			host++
		}
		if host == 0 || (host < len(rest) && rest[host] != '/' && rest[host] != '?') {
			return false, false
		}
		rest = rest[host:]
	}
	for i := 0; i < len(rest); i++ {
		switch c := rest[i]; {
		case plainTargetByte[c]:
		case c == '%' && i+2 < len(rest) && isHexByte(rest[i+1]) && isHexByte(rest[i+2]):
			i += 2
		default:
			return false, false
		}
	}
	return local, true
}

// plainTargetByte marks the bytes plainTarget accepts after the host.
var plainTargetByte = func() (set [256]bool) {
	for _, c := range []byte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/?&=;:@,+$!*'()") {
		set[c] = true
	}
	return set
}()

func isAlnumByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isHexByte(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
