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

// mayNotChange returns why the signed-in key or person may not use the
// console's page name, one that changes identifiers whatever they are,
// "" when it may (or when name is no such page): the menu offers those
// pages only to who may use them, and they refuse anyone else before a
// form is filled in.
func (p *page) mayNotChange(name string) string {
	switch name {
	case "mint":
		if !p.mayMintSome() {
			return p.sess.key.Name() + " may not mint under any shoulder of this site"
		}
	case "retarget", "undo", "import":
		if !p.sess.key.MayWriteSome() {
			return p.sess.key.Name() + " may not write any identifier"
		}
	}
	return ""
}

// mayMintSome reports whether the signed-in key or person may mint under
// a shoulder of one of the site's minters.
func (p *page) mayMintSome() bool { return len(p.shoulders()) > 0 }
