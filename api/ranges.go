package api

import (
	"slices"
	"strings"
)

// keyPrefix is the prefix of the normalized keys that sc covers, and false
// for the admin scope, which covers none. Every key sc covers starts with
// it (an ARK scope's NAAN and shoulder, "urn:<nid>:", "" for "*"); a key
// with it that sc does not cover is told apart by covers.
func (sc *scope) keyPrefix() (string, bool) {
	switch {
	case sc.admin:
		return "", false
	case sc.all:
		return "", true
	case sc.urn != "":
		return sc.urn, true
	}
	return "ark:" + sc.naan + "/" + sc.name, true
}

// ranges returns the key prefixes under which lie all the keys starting
// with prefix that k may read (write false) or write: sorted, none
// inside another, so that the ranges follow each other in key order.
// None when k may touch no key there.
func (k *apiKey) ranges(write bool, prefix string) []string {
	var out []string
	for i := range k.scopes {
		sc := &k.scopes[i]
		p, ok := sc.keyPrefix()
		switch {
		case !ok || write && !sc.write:
		case strings.HasPrefix(prefix, p):
			return []string{prefix} // the scope holds the whole range
		case strings.HasPrefix(p, prefix):
			out = append(out, p)
		}
	}
	slices.Sort(out)
	var kept []string // in order, a prefix comes before the keys under it
	for _, p := range out {
		if len(kept) == 0 || !strings.HasPrefix(p, kept[len(kept)-1]) {
			kept = append(kept, p)
		}
	}
	return kept
}
