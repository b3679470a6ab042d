package targets

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/caddy-ark/caddy-ark/normalize"
)

// Prefix is a set of identifiers: a NAAN, a shoulder, or a URN namespace.
// The zero Prefix holds every identifier.
type Prefix struct {
	start string // what the normalized keys under it start with
}

// ParsePrefix reads "ark:NAAN/shoulder" or "ark:NAAN" in any equivalent
// spelling, or "urn:<namespace>"; "" is every identifier.
func ParsePrefix(s string) (Prefix, error) {
	switch {
	case s == "":
		return Prefix{}, nil
	case len(s) > 4 && strings.EqualFold(s[:4], "urn:"):
		nid := strings.ToLower(strings.TrimSuffix(s[4:], ":"))
		if nid == "" || strings.ContainsAny(nid, ":/?#") {
			return Prefix{}, fmt.Errorf("prefix %q: a URN prefix names one namespace, such as urn:isbn", s)
		}
		return Prefix{start: "urn:" + nid + ":"}, nil
	}
	naan, shoulder, err := normalize.ParsePrefix(s)
	if err != nil {
		return Prefix{}, err
	}
	return Prefix{start: "ark:" + naan + "/" + shoulder}, nil
}

// Covers reports whether key, a normalized identifier, is under p.
func (p Prefix) Covers(key string) bool { return strings.HasPrefix(key, p.start) }

// String returns what the keys under p start with.
func (p Prefix) String() string { return p.start }

// originOf returns the origin of an absolute http(s) URL, spelled
// "scheme://host:port" in lower case with the port always given (url.Parse
// lowers the scheme), and whether target is one.
func originOf(target string) (string, bool) {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", false
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port), true
}
