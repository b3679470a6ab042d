package console

import "github.com/caddy-ark/caddy-ark/api"

// personSession is the session of who, a person signed in through the
// site's authentication: made again for every request, it has no cookie
// and no end of its own. Its nonce, which the form tokens are made from,
// is derived from the person's name, so that a page served to them
// before still posts.
func (c *Console) personSession(who *api.Caller) *session {
	return &session{name: who.Name(), nonce: b64.EncodeToString(mac(c.secret, "person", who.Name())), key: who, person: true}
}
