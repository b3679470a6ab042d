package api

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/caddy-ark/caddy-ark/internal/osfile"
	"github.com/caddy-ark/caddy-ark/normalize"
)

// APIKey is a bearer key of the management API. Only the SHA-256 hash of
// the key is configured: `caddy ark hash-key` or
// `printf %s "$KEY" | sha256sum` makes it.
type APIKey struct {
	// The key's name, recorded in the history of every change it makes.
	Name string `json:"name"`

	// The SHA-256 hash of the key, 64 hexadecimal digits.
	Hash string `json:"hash"`

	// What the key may do, each "read:<prefix>" or "write:<prefix>", where
	// <prefix> is a NAAN or shoulder ("ark:12345", "ark:12345/x5"), a URN
	// namespace ("urn:isbn") or "*" for every identifier. Write includes
	// read. "admin" grants what concerns the whole store (GET backup) and
	// no identifier's requests.
	Scopes []string `json:"scopes"`
}

// apiKey is an APIKey compiled for checking requests.
type apiKey struct {
	name      string
	hash      string // the SHA-256 hash of the key, raw
	scopes    []scope
	scopeText []string // as configured
	person    bool     // a person signed in through the site's authentication (people.go)
	groups    []string // a person's groups that give them access
}

// scope is one compiled scope.
type scope struct {
	write bool
	admin bool   // "admin": the whole store, no identifier
	all   bool   // "*"
	naan  string // an ARK prefix's NAAN
	name  string // its shoulder, "" for the whole NAAN
	urn   string // a URN prefix, "urn:<nid>:"
}

// Validate checks k as the API will use it: its name, hash and scopes.
func (k APIKey) Validate() error {
	_, _, err := compileKey(k)
	return err
}

// compileKey checks k and returns it compiled, with its hash decoded.
func compileKey(k APIKey) (string, *apiKey, error) {
	if k.Name == "" || strings.ContainsFunc(k.Name, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return "", nil, fmt.Errorf("key %q: a name is one word without spaces", k.Name)
	}
	if strings.HasPrefix(k.Name, PersonPrefix) {
		return "", nil, fmt.Errorf("key %s: a key's name may not start with %s, which names the people who write", k.Name, PersonPrefix)
	}
	sum, err := hex.DecodeString(k.Hash)
	if err != nil || len(sum) != sha256.Size {
		return "", nil, fmt.Errorf("key %s: %q is not a SHA-256 hash (64 hexadecimal digits); make one with caddy ark hash-key", k.Name, k.Hash)
	}
	if len(k.Scopes) == 0 {
		return "", nil, fmt.Errorf("key %s: no scope: give read:<prefix> or write:<prefix>", k.Name)
	}
	c := &apiKey{name: k.Name, hash: string(sum), scopeText: k.Scopes}
	for _, s := range k.Scopes {
		sc, err := parseScope(s)
		if err != nil {
			return "", nil, fmt.Errorf("key %s: %w", k.Name, err)
		}
		c.scopes = append(c.scopes, sc)
	}
	return string(sum), c, nil
}

// parseScope reads "read:<prefix>", "write:<prefix>" or "admin".
func parseScope(s string) (scope, error) {
	access, prefix, ok := strings.Cut(s, ":")
	var sc scope
	switch {
	case s == "admin":
		sc.admin = true
		return sc, nil
	case !ok || (access != "read" && access != "write"):
		return sc, fmt.Errorf("scope %q: write read:<prefix> or write:<prefix>, such as write:ark:12345/x5, or admin", s)
	case prefix == "*":
		sc.all = true
	case len(prefix) > 4 && strings.EqualFold(prefix[:4], "urn:"):
		nid := strings.ToLower(strings.TrimSuffix(prefix[4:], ":"))
		if nid == "" || strings.ContainsAny(nid, ":/?#") {
			return sc, fmt.Errorf("scope %q: a URN scope names one namespace, such as urn:isbn", s)
		}
		sc.urn = "urn:" + nid + ":"
	default:
		naan, shoulder, err := normalize.ParsePrefix(prefix)
		if err != nil {
			return sc, fmt.Errorf("scope %q: %w", s, err)
		}
		sc.naan, sc.name = naan, shoulder
	}
	sc.write = access == "write"
	return sc, nil
}

// covers reports whether sc covers the normalized identifier key.
func (sc *scope) covers(key string) bool {
	switch {
	case sc.all:
		return true
	case sc.urn != "":
		return strings.HasPrefix(key, sc.urn)
	}
	a, err := normalize.ParseARK(key)
	return err == nil && sc.coversARKs(a.NAAN(), a.Name())
}

// coversARKs reports whether sc covers every ARK under NAAN naan whose
// Name starts with name (a shoulder; "" for the whole NAAN), both
// normalized.
func (sc *scope) coversARKs(naan, name string) bool {
	return sc.all || sc.urn == "" && sc.naan == naan && strings.HasPrefix(name, sc.name)
}

// may reports whether the key may read (write false) or write key.
func (k *apiKey) may(write bool, key string) bool {
	return k.anyScope(write, func(sc *scope) bool { return sc.covers(key) })
}

// mayPrefix reports whether the key may read (write false) or write every
// ARK under NAAN naan whose Name starts with shoulder, normalized as
// normalize.ParsePrefix gives them; shoulder "" is the whole NAAN, which may cannot
// be asked about: "ark:12345/" is not an ARK.
func (k *apiKey) mayPrefix(write bool, naan, shoulder string) bool {
	return k.anyScope(write, func(sc *scope) bool { return sc.coversARKs(naan, shoulder) })
}

// anyScope reports whether one of the key's scopes that grants the access
// (write, or read) satisfies ok.
func (k *apiKey) anyScope(write bool, ok func(*scope) bool) bool {
	for i := range k.scopes {
		if sc := &k.scopes[i]; (sc.write || !write) && ok(sc) {
			return true
		}
	}
	return false
}

// readKeyFile reads a key file: one key a line, "<name> <sha256-hex>
// <scope>...", blank lines and lines starting with "#" skipped.
func readKeyFile(name string) ([]APIKey, error) {
	f, err := osfile.OpenRegular(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var keys []APIKey
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) < 3 {
			return nil, fmt.Errorf("%s:%d: want <name> <sha256-hex> <scope>...", name, line)
		}
		k := APIKey{Name: fields[0], Hash: fields[1], Scopes: fields[2:]}
		if _, _, err := compileKey(k); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		keys = append(keys, k)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return keys, nil
}

// errNoKey and errWrongKey are the two ways a request is unauthenticated.
var (
	errNoKey    = errors.New("this API needs a key: send Authorization: Bearer <key>")
	errWrongKey = errors.New("the key is not known here")
)

// authenticate returns the key that r carries: a configured key, or one
// of the keys of s's store that works now.
func (a *API) authenticate(r *http.Request, s Site) (*apiKey, error) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return nil, errNoKey
	}
	c, err := a.Authenticate(token)
	if errors.Is(err, errWrongKey) {
		return a.storedKey(r.Context(), s, sha256.Sum256([]byte(strings.TrimSpace(token))))
	}
	if err != nil {
		return nil, err
	}
	return c.key, nil
}
