package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/caddy-ark/caddy-ark/internal/urlpath"
	"github.com/caddy-ark/caddy-ark/normalize"
)

// defaultResolver is the ARK Maintenance Agency's global resolver, the one
// the draft recommends.
const defaultResolver = "https://n2t.net"

// The states of the draft's reference resolution algorithm.
const (
	stateDirect  = "direct"  // the final URI locates the ARK's referent
	stateRelated = "related" // a 303 was seen: the final URI is only related
)

// resolveOptions are the user's choices for resolveARK.
type resolveOptions struct {
	Resolver     string // resolver prefix, e.g. "https://n2t.net"
	MaxRedirects int    // redirects to follow at most
	Method       string // http.MethodHead or http.MethodGet
}

// clientResult is the outcome of a successful resolveARK.
type clientResult struct {
	State string // stateDirect or stateRelated
	URI   string // the final location
}

// resolveARK runs the reference resolution algorithm of
// draft-ark-uri-scheme for id, an ARK: starting from the Embedded ARK under
// opts.Resolver, it follows redirects one request at a time and classifies
// the final location as the referent ("direct") or as related to it (a 303
// was seen). It writes one line per HTTP response ("<status> <URI>", plus
// " -> <Location>" for a redirect) and, on success, a final
// "<state>: <URI>" line to w. The error says why resolution failed.
//
// client is used for sending requests but never follows redirects itself.
func resolveARK(ctx context.Context, client *http.Client, opts resolveOptions, id string, w io.Writer) (clientResult, error) {
	a, err := normalize.ParseARK(id)
	if err != nil {
		return clientResult{}, fmt.Errorf("%s is not an ARK: %w", terminalSafe(id), err)
	}
	uri, err := embeddedARK(opts.Resolver, a)
	if err != nil {
		return clientResult{}, err
	}
	noFollow := *client
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	state := stateDirect
	seen := make(map[string]bool)
	for left := opts.MaxRedirects; left >= 0; left-- {
		if uri.Scheme != "http" && uri.Scheme != "https" {
			return succeed(w, state, uri)
		}
		key := uri.String()
		if seen[key] {
			return clientResult{}, fmt.Errorf("redirect loop: %s was already requested", uri)
		}
		seen[key] = true

		code, location, err := fetch(ctx, &noFollow, opts.Method, uri)
		if err != nil {
			return clientResult{}, err
		}
		switch code {
		case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
			http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
			next, err := nextURI(uri, location)
			if err != nil {
				fmt.Fprintf(w, "%d %s\n", code, uri)
				return clientResult{}, fmt.Errorf("%d from %s: %w", code, uri, err)
			}
			fmt.Fprintf(w, "%d %s -> %s\n", code, uri, next)
			if code == http.StatusSeeOther {
				state = stateRelated
			}
			uri = next
		case http.StatusOK, http.StatusNoContent, http.StatusPartialContent,
			http.StatusIMUsed, http.StatusNotModified:
			fmt.Fprintf(w, "%d %s\n", code, uri)
			return succeed(w, state, uri)
		default:
			fmt.Fprintf(w, "%d %s\n", code, uri)
			return clientResult{}, fmt.Errorf("%s answered %d %s", uri, code, http.StatusText(code))
		}
	}
	return clientResult{}, fmt.Errorf("more than %d redirects", opts.MaxRedirects)
}

// succeed writes the final line of a successful resolution and returns it.
func succeed(w io.Writer, state string, uri *url.URL) (clientResult, error) {
	fmt.Fprintf(w, "%s: %s\n", state, uri)
	return clientResult{State: state, URI: uri.String()}, nil
}

// embeddedARK returns the URI the resolution starts from: the resolver
// prefix, "/", and the normalized ARK with its query (the inflection) but
// without its fragment, which never reaches a server.
func embeddedARK(resolver string, a normalize.ARK) (*url.URL, error) {
	prefix, err := url.Parse(resolver)
	if err != nil || (prefix.Scheme != "http" && prefix.Scheme != "https") || prefix.Host == "" {
		return nil, fmt.Errorf("resolver %s is not an http or https URL", terminalSafe(resolver))
	}
	s := strings.TrimRight(resolver, "/") + "/" + a.Key() + escapeQuery(a.Query())
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("cannot make a URL of %s: %w", terminalSafe(s), err)
	}
	return u, nil
}

// escapeQuery percent-encodes the bytes of an ARK's query that may not
// appear raw in a URI query (non-ASCII, spaces, controls and the like):
// normalization leaves the query untouched, so it may hold any of them.
func escapeQuery(q string) string {
	return urlpath.PercentEncode(q, func(c rune) bool {
		return !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			strings.ContainsRune("-._~!$&'()*+,;=:@/?%", c))
	})
}

// fetch sends one request and returns the response's status code and
// Location header.
func fetch(ctx context.Context, client *http.Client, method string, uri *url.URL) (code int, location string, err error) {
	req, err := http.NewRequestWithContext(ctx, method, uri.String(), nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	resp.Body.Close() // only the status and Location matter
	return resp.StatusCode, resp.Header.Get("Location"), nil
}

// nextURI resolves a redirect's Location against the URI that answered it.
// (net/http's Client already fails, in fetch, on a Location it cannot
// parse; it passes a missing one through.)
func nextURI(uri *url.URL, location string) (*url.URL, error) {
	if location == "" {
		return nil, errors.New("no Location header")
	}
	next, err := uri.Parse(location)
	if err != nil {
		return nil, fmt.Errorf("invalid Location: %w", err)
	}
	return next, nil
}
