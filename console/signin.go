package console

import (
	"crypto/hmac"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/sameorigin"
)

// signinCookie holds the nonce of a browser's sign-in form, which the
// form's token is made from: a sign-in posted from another site carries
// neither (login CSRF).
const signinCookie = "ark_console_signin"

// signinForm is what the sign-in page shows.
type signinForm struct {
	Token string
}

// signin answers the sign-in page: the form on GET, the key checked once
// on POST, which becomes a session cookie.
func (p *page) signin() error {
	switch p.r.Method {
	case http.MethodGet, http.MethodHead:
		if s := p.c.session(p.r, p.site); s != nil {
			http.Redirect(p.w, p.r, p.c.base, http.StatusSeeOther)
			return nil
		}
		notice := ""
		if p.r.URL.Query().Get("out") != "" {
			notice = "You are signed out."
		}
		return p.signinPage(http.StatusOK, notice, "")
	case http.MethodPost:
		return p.checkSignin()
	}
	p.w.Header().Set("Allow", "GET, POST")
	return p.problem(http.StatusMethodNotAllowed, "The sign-in page takes GET and POST.")
}

// signinPage shows the sign-in form, with a new form nonce when the
// browser has none.
func (p *page) signinPage(status int, notice, problem string) error {
	nonce := ""
	if ck, err := p.r.Cookie(signinCookie); err == nil && ck.Value != "" {
		nonce = ck.Value
	} else {
		nonce = newNonce()
		p.c.setCookie(p.w, p.r, signinCookie, nonce, int(time.Hour/time.Second))
	}
	return p.render(status, view{Title: "Sign in", Notice: notice, Error: problem, Page: signinForm{Token: p.c.signinToken(nonce)}}, "signin")
}

// checkSignin checks a posted key: from this console's form, not too
// soon after repeated failures, and one of the API's keys.
func (p *page) checkSignin() error {
	if sameorigin.Check(p.r) != nil {
		return p.problem(http.StatusForbidden, "This sign-in was sent from another site: the console refuses it.")
	}
	p.r.Body = http.MaxBytesReader(p.w, p.r.Body, 64<<10)
	if err := p.r.ParseForm(); err != nil {
		return p.problem(http.StatusBadRequest, "The form could not be read: "+err.Error())
	}
	ck, err := p.r.Cookie(signinCookie)
	token, _ := b64.DecodeString(p.r.PostForm.Get(csrfField))
	if err != nil || !hmac.Equal(token, mac(p.c.secret, "signin", ck.Value)) {
		return p.signinPage(http.StatusForbidden, "", "This sign-in form has expired or was not sent from this console: sign in again with this form.")
	}
	client, secret := clientOf(p.r), p.r.PostForm.Get("key")
	if wait := p.c.throttle.wait(client); wait > 0 {
		if key := p.knownBrowserKey(secret); key != nil {
			return p.signedIn(key)
		}
		secs := int(math.Ceil(wait.Seconds()))
		p.w.Header().Set("Retry-After", fmt.Sprint(secs))
		return p.signinPage(http.StatusTooManyRequests, "", fmt.Sprintf("Too many failed sign-ins from your address: wait %d seconds before trying again.", secs))
	}
	key, err := p.c.api.AuthenticateOn(p.r.Context(), p.site, secret)
	if err != nil {
		p.c.throttle.failed(client)
		return p.signinPage(http.StatusUnauthorized, "", "That key is not known here.")
	}
	p.c.throttle.succeeded(client)
	return p.signedIn(key)
}

// signedIn starts the session of key, and marks the browser as known for
// it (knownbrowser.go).
func (p *page) signedIn(key *api.Caller) error {
	now := time.Now()
	s := &session{name: key.Name(), expires: now.Add(p.c.length), issued: now, nonce: newNonce(), key: key}
	p.c.setCookie(p.w, p.r, sessionCookie, p.c.cookieValue(s), int(p.c.length/time.Second))
	p.c.setCookie(p.w, p.r, signinCookie, "", -1)
	p.c.setCookie(p.w, p.r, knownCookie, p.c.knownValue(key.Name()), int(knownFor/time.Second))
	http.Redirect(p.w, p.r, p.c.base, http.StatusSeeOther)
	return nil
}

// signedOut answers a request without a valid session: a page is shown
// after signing in, a change is refused.
func (p *page) signedOut() error {
	if p.r.Method == http.MethodGet || p.r.Method == http.MethodHead {
		http.Redirect(p.w, p.r, p.c.base+"signin", http.StatusSeeOther)
		return nil
	}
	return p.problem(http.StatusForbidden, "You are not signed in, or your session has ended: nothing was done. Sign in again.")
}

// signout ends the session: its cookie is deleted, and the session is
// refused until it would have expired, should a copy of the cookie be
// sent again.
func (p *page) signout() error {
	signedOut.add(p.sess.nonce, p.sess.expires)
	p.c.setCookie(p.w, p.r, sessionCookie, "", -1)
	http.Redirect(p.w, p.r, p.c.base+"signin?out=1", http.StatusSeeOther)
	return nil
}
