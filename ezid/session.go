package ezid

import (
	"net/http"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
)

// SessionCookie is the name of the session cookie that login returns, as
// EZID's server names it (Django's default).
const SessionCookie = "sessionid"

// session is who a session cookie signs in, until when: the caller's
// name ("person:alice", or a key's) and a person's groups, on the host
// and EZID path it was made for. The cookie is the session, signed with
// the server's key (seal), so that every node holding the key takes it:
// nothing is kept of a session but the logouts.
type session struct {
	Name    string   `json:"n"`
	Groups  []string `json:"g,omitempty"`
	Site    string   `json:"s"`
	Expires int64    `json:"e"` // Unix seconds
}

// sessionSite names the host and path of the request's EZID API: a session made
// there is valid there only, never for another site of the same process,
// whose people may be others of the same names.
func (c *call) sessionSite() string { return strings.ToLower(c.r.Host) + c.s.path }

// maxLogouts bounds the logouts kept at once: a logout into a full list
// drops others to make room.
const maxLogouts = 1 << 16

// logouts are the session cookies logged out on this process, until they
// expire: such a cookie, sent again (copied before the logout), is no
// credential here. They are the node's own: another node takes a cookie
// logged out elsewhere until it expires (the session's length, EZID's
// 7 days by default); docs/moving-from-ezid.md says so. A reload keeps
// them.
var logouts = struct {
	sync.Mutex
	m map[string]time.Time
}{m: map[string]time.Time{}}

// session returns the session that the request's cookie names, if it is
// valid: signed with the server's key, for this site, not expired, not
// logged out here.
func (c *call) session() (session, bool) {
	ck, err := c.r.Cookie(SessionCookie)
	if err != nil || ck.Value == "" {
		return session{}, false
	}
	var s session
	if !open(c.s.key, purposeSession, ck.Value, &s) || s.Site != c.sessionSite() || time.Now().Unix() >= s.Expires {
		return session{}, false
	}
	logouts.Lock()
	_, out := logouts.m[ck.Value]
	logouts.Unlock()
	return s, !out
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
	s := session{Name: who.Name(), Groups: who.Groups(), Site: c.sessionSite(),
		Expires: time.Now().Add(c.s.api.EZID.SessionLength()).Unix()}
	value, err := seal(c.s.key, purposeSession, s)
	if err != nil {
		return c.answer(&failure{http.StatusInternalServerError, "internal server error"})
	}
	http.SetCookie(c.w, c.cookie(value, 0))
	return c.success("session cookie returned", http.StatusOK, nil)
}

// logout answers GET logout: the session, if any, ends (here: see
// logouts), and the cookie is cleared, "success: authentication
// credentials flushed".
func (c *call) logout() error {
	if c.r.Method != http.MethodGet {
		return c.answer(errMethodNotAllowed)
	}
	if err := c.options(nil); err != nil {
		return c.answer(err)
	}
	if s, ok := c.session(); ok {
		ck, _ := c.r.Cookie(SessionCookie)
		now := time.Now()
		logouts.Lock()
		for v, exp := range logouts.m {
			if !now.Before(exp) || len(logouts.m) >= maxLogouts {
				delete(logouts.m, v)
			}
		}
		logouts.m[ck.Value] = time.Unix(s.Expires, 0)
		logouts.Unlock()
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
