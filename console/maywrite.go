package console

import "github.com/caddy-ark/caddy-ark/table"

// mayNotWrite returns why the signed-in key or person may not change id,
// "" when it may (or when id is no identifier, which the API refuses): a
// form that the API would refuse once filled in is not offered.
func (p *page) mayNotWrite(id string) string {
	key, _, err := table.AssignableKey(id)
	if err != nil || p.sess.key.MayWrite(key) {
		return ""
	}
	return p.sess.key.Name() + " may not write " + key // as the API says it
}
