package console

import (
	"crypto/hmac"
)

// csrfField is the name of the form field that carries a form's token.
const csrfField = "csrf"

// csrfToken returns the token of the forms of session s: only pages
// served to that session have it, and it ends with the session.
func (c *Console) csrfToken(s *session) string {
	return b64.EncodeToString(mac(c.secret, "csrf", s.nonce))
}

// validToken reports whether token is the form token of s.
func (c *Console) validToken(s *session, token string) bool {
	got, err := b64.DecodeString(token)
	return err == nil && hmac.Equal(got, mac(c.secret, "csrf", s.nonce))
}

// signinToken returns the token of the sign-in form shown to the browser
// that holds the pre-sign-in cookie nonce: a sign-in posted from
// elsewhere has neither.
func (c *Console) signinToken(nonce string) string {
	return b64.EncodeToString(mac(c.secret, "signin", nonce))
}
