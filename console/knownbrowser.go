package console

import (
	"crypto/hmac"
	"time"

	"github.com/caddy-ark/caddy-ark/api"
)

// knownCookie marks a browser that has signed in with a key: it holds a
// MAC of the key's name, which only a browser that presented the key gets.
// Such a browser presenting that key again is let in even while its
// address, its block or its overflow count must wait (throttle.go): a
// flood of wrong keys from elsewhere does not lock out the people who use
// the console, and the cookie gives no tries to anyone without the key.
const knownCookie = "ark_console_known"

// knownFor is how long a browser stays known after signing in.
const knownFor = 90 * 24 * time.Hour

// knownValue is the value of knownCookie for the key called name.
func (c *Console) knownValue(name string) string {
	return b64.EncodeToString(mac(c.secret, "known", name))
}

// knownBrowserKey returns the caller whose key is secret when r's browser
// has signed in with that key before; nil otherwise, without saying
// whether secret is another key, so that a browser known for one key
// learns nothing of others while it must wait.
func (p *page) knownBrowserKey(secret string) *api.Caller {
	ck, err := p.r.Cookie(knownCookie)
	if err != nil {
		return nil
	}
	got, err := b64.DecodeString(ck.Value)
	if err != nil {
		return nil
	}
	key, err := p.c.api.AuthenticateOn(p.r.Context(), p.site, secret)
	if err != nil || !hmac.Equal(got, mac(p.c.secret, "known", key.Name())) {
		return nil
	}
	return key
}
