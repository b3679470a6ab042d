package ezid

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
)

// SessionCookie is the name of the session cookie that login returns, as
// EZID's server names it (Django's default).
const SessionCookie = "sessionid"

// maxSessions bounds the sessions kept at once: a login into a full
// table drops others to make room.
const maxSessions = 1 << 16

// session is who a session cookie signs in, until when: the caller's
// name ("person:alice", or a key's) and a person's groups, on the host
// and EZID path it was made for.
type session struct {
	name    string
	groups  []string
	expires time.Time
	site    string
}

// sessionSite names the host and path of the request's EZID API: a session made
// there is valid there only, never for another site of the same process,
// whose people may be others of the same names.
func (c *call) sessionSite() string { return strings.ToLower(c.r.Host) + c.s.path }

// sessionTable holds the sessions of every EZID server of the process, by
// token, so that a reload of the configuration keeps them: a token is
// random, and who it names is given their scopes anew with each request.
// Sessions are the process's own: with several nodes, a client that logs
// in on one uses its cookie on that one (or sends Basic credentials with
// every request, as most of EZID's clients do).
var sessionTable = struct {
	sync.Mutex
	m map[string]session
}{m: map[string]session{}}

// session returns the session that the request's cookie names, if it is
// valid.
func (c *call) session() (session, bool) {
	ck, err := c.r.Cookie(SessionCookie)
	if err != nil || ck.Value == "" {
		return session{}, false
	}
	sessionTable.Lock()
	defer sessionTable.Unlock()
	s, ok := sessionTable.m[ck.Value]
	switch {
	case !ok:
		return session{}, false
	case time.Now().After(s.expires):
		delete(sessionTable.m, ck.Value)
		return session{}, false
	}
	return s, s.site == c.sessionSite()
}

// login answers GET login: a person signed in by Basic credentials gets a
// session cookie, "success: session cookie returned".
func (c *call) login() error {
	if c.r.Method != http.MethodGet {
		return c.answer(errMethodNotAllowed)
	}
	if err := c.options(nil); err != nil {
		return c.answer(err)
	}
	who, err := c.signedIn()
	if err != nil {
		return c.answer(err)
	}
	var token [16]byte
	if _, err := rand.Read(token[:]); err != nil {
		return c.answer(&failure{http.StatusInternalServerError, "internal server error"})
	}
	value := hex.EncodeToString(token[:])
	now := time.Now()
	sessionTable.Lock()
	for t, s := range sessionTable.m {
		if now.After(s.expires) || len(sessionTable.m) >= maxSessions {
			delete(sessionTable.m, t)
		}
	}
	sessionTable.m[value] = session{name: who.Name(), groups: who.Groups(), expires: now.Add(c.s.api.EZID.SessionLength()), site: c.sessionSite()}
	sessionTable.Unlock()
	http.SetCookie(c.w, c.cookie(value, 0))
	return c.success("session cookie returned", http.StatusOK, nil)
}

// logout answers GET logout: the session, if any, ends, and the cookie is
// cleared, "success: authentication credentials flushed".
func (c *call) logout() error {
	if c.r.Method != http.MethodGet {
		return c.answer(errMethodNotAllowed)
	}
	if err := c.options(nil); err != nil {
		return c.answer(err)
	}
	if ck, err := c.r.Cookie(SessionCookie); err == nil {
		sessionTable.Lock()
		delete(sessionTable.m, ck.Value)
		sessionTable.Unlock()
	}
	http.SetCookie(c.w, c.cookie("", -1))
	return c.success("authentication credentials flushed", http.StatusOK, nil)
}

// cookie returns the session cookie holding value, for the server's path:
// a browser session's (no expiry, as EZID's), HttpOnly, SameSite=Strict,
// Secure over https; maxAge -1 clears it.
func (c *call) cookie(value string, maxAge int) *http.Cookie {
	path := c.s.path
	if path == "" {
		path = "/"
	}
	return &http.Cookie{Name: SessionCookie, Value: value, Path: path, MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: c.r.TLS != nil}
}

// zapReason is err as a log field.
func zapReason(err error) zap.Field { return zap.String("reason", err.Error()) }
