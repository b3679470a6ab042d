package console

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/caddy-ark/caddy-ark/api"
)

// sessionCookie is the name of the cookie that holds a sign-in.
const sessionCookie = "ark_console"

// session is a sign-in, as its cookie holds it: the key's name, when it
// ends, when it began, and a random nonce that names the session (for its
// form tokens and for signing out). The cookie is signed with the
// console's secret over these, the key's hash and the console's name, so
// that it says nothing of the key, a key removed or given a new secret
// ends its sessions, and another console with the same key and the same
// secret (another site's, in this process or with the same secret_file)
// refuses it; one that began before the console last got its key back is
// refused (keylife.go).
type session struct {
	name    string
	expires time.Time
	issued  time.Time
	nonce   string // base64url
	key     *api.Caller
	person  bool // a person signed in through the site's authentication (person.go)
}

// b64 is the encoding of the cookies' parts.
var b64 = base64.RawURLEncoding

// mac returns the HMAC-SHA256 of parts under secret, separated so that
// no two lists of parts give the same message, after a label that keeps
// the uses of the secret apart.
func mac(secret []byte, label string, parts ...string) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(label))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(strconv.Itoa(len(p))))
		h.Write([]byte{':'})
		h.Write([]byte(p))
	}
	return h.Sum(nil)
}

// newNonce returns 16 random bytes, base64url.
func newNonce() string {
	b := make([]byte, 16)
	rand.Read(b)
	return b64.EncodeToString(b)
}

// cookieValue returns the signed cookie value of s: its parts, separated
// by ".", are the key's name (base64url), the end and the beginning (Unix
// seconds and nanoseconds), the nonce and the signature.
func (c *Console) cookieValue(s *session) string {
	exp := strconv.FormatInt(s.expires.Unix(), 10)
	issued := strconv.FormatInt(s.issued.UnixNano(), 10)
	sig := mac(c.secret, "session", c.name, s.name, exp, issued, s.nonce, string(s.key.Hash()))
	return b64.EncodeToString([]byte(s.name)) + "." + exp + "." + issued + "." + s.nonce + "." + b64.EncodeToString(sig)
}

// session returns the sign-in that r's cookie holds, nil when it holds
// none that is valid now: unsigned or signed by another secret, expired,
// signed out, signed by another console, of a key that the API no
// longer has with that secret, or begun before the console got the key
// back after it was removed.
func (c *Console) session(r *http.Request, s api.Site) *session {
	ck, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil
	}
	parts := strings.Split(ck.Value, ".")
	if len(parts) != 5 {
		return nil
	}
	name, err := b64.DecodeString(parts[0])
	if err != nil {
		return nil
	}
	exp, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || time.Now().Unix() >= exp {
		return nil
	}
	issued, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil {
		return nil
	}
	sig, err := b64.DecodeString(parts[4])
	if err != nil {
		return nil
	}
	key, ok := c.api.CallerNamedOn(r.Context(), s, string(name))
	if !ok {
		return nil
	}
	if !hmac.Equal(sig, mac(c.secret, "session", c.name, string(name), parts[1], parts[2], parts[3], string(key.Hash()))) {
		return nil
	}
	if signedOut.has(parts[3]) || time.Unix(0, issued).Before(c.keySince[key.Name()]) {
		return nil
	}
	return &session{name: string(name), expires: time.Unix(exp, 0), issued: time.Unix(0, issued), nonce: parts[3], key: key}
}

// setCookie sends the cookie named name with value for the console's
// path: HttpOnly, SameSite=Strict, Secure on HTTPS; maxAge < 0 deletes it.
func (c *Console) setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{
		Name:     name,
		Value:    value,
		Path:     c.base,
		MaxAge:   maxAge,
		HttpOnly: true,
		Secure:   r.TLS != nil,
		SameSite: http.SameSiteStrictMode,
	})
}

// signedOut holds the nonces of sessions signed out before they expire,
// until they expire, for every console of the process.
var signedOut = &revoked{until: map[string]time.Time{}}

// revoked is a set of nonces, each kept until a time.
type revoked struct {
	mu    sync.Mutex
	until map[string]time.Time
}

// add keeps nonce until t, forgetting those whose time has passed.
func (rv *revoked) add(nonce string, t time.Time) {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	now := time.Now()
	for n, u := range rv.until {
		if now.After(u) {
			delete(rv.until, n)
		}
	}
	rv.until[nonce] = t
}

// has reports whether nonce is kept.
func (rv *revoked) has(nonce string) bool {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	_, ok := rv.until[nonce]
	return ok
}
