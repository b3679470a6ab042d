package oai

import (
	"strings"

	"github.com/caddy-ark/caddy-ark/normalize"
)

// set is one set: its setSpec, its setName (the prefix as identifiers
// spell it: "ark:12345/x5", "ark:12345", "ark") and the prefix of the
// keys it holds.
type set struct{ spec, name, prefix string }

// setsOf returns the sets key belongs to, widest first: "ark",
// "ark:12345", "ark:12345:x5" (the shoulder, when the name has one), or
// "urn", "urn:nbn".
func setsOf(key string) []set {
	if rest, ok := strings.CutPrefix(key, "urn:"); ok {
		nid, _, _ := strings.Cut(rest, ":")
		sets := []set{{"urn", "urn", "urn:"}}
		if specElement(nid) {
			sets = append(sets, set{"urn:" + nid, "urn:" + nid, "urn:" + nid + ":"})
		}
		return sets
	}
	a, err := normalize.ParseARK(key)
	if err != nil {
		return nil
	}
	sets := []set{{"ark", "ark", "ark:"}}
	if !specElement(a.NAAN()) {
		return sets
	}
	sets = append(sets, set{"ark:" + a.NAAN(), "ark:" + a.NAAN(), "ark:" + a.NAAN() + "/"})
	if sh := a.Shoulder(); sh != "" {
		sets = append(sets, set{"ark:" + a.NAAN() + ":" + sh, "ark:" + a.NAAN() + "/" + sh, "ark:" + a.NAAN() + "/" + sh})
	}
	return sets
}

// parseSet returns the key prefix of a setSpec, and false when it names
// no set of this repository's form.
func parseSet(spec string) (prefix string, ok bool) {
	parts := strings.Split(spec, ":")
	for _, p := range parts {
		if !specElement(p) {
			return "", false
		}
	}
	switch {
	case parts[0] == "urn" && len(parts) == 1:
		return "urn:", true
	case parts[0] == "urn" && len(parts) == 2:
		return "urn:" + parts[1] + ":", true
	case parts[0] == "ark" && len(parts) == 1:
		return "ark:", true
	case parts[0] == "ark" && len(parts) == 2:
		return "ark:" + parts[1] + "/", true
	case parts[0] == "ark" && len(parts) == 3:
		a, err := normalize.ParseARK("ark:" + parts[1] + "/" + parts[2])
		if err != nil || a.Shoulder() != parts[2] {
			return "", false
		}
		return "ark:" + parts[1] + "/" + parts[2], true
	}
	return "", false
}

// specElement reports whether s is a setSpec element: one or more of
// [A-Za-z0-9-_.!~*'()].
func specElement(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0) {
			return false
		}
	}
	return true
}
