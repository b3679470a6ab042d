package api

import (
	"net/http"
	"strings"
	"unicode/utf8"
)

// maxKeyName bounds the name of a key made through the API.
const maxKeyName = 64

// checkNewKeyName refuses, 400, the name of a key to be made through the
// API unless it is ASCII letters, digits, ".", "_" and "-", starting with
// a letter or a digit, at most maxKeyName bytes: the history and the
// console name the key that made each change, and a name with a
// character from another script ("x5еd", a Cyrillic е) would look like
// another key's. Configured keys, and stored keys made before, keep their
// names; the console shows every character of a key's name outside
// printable ASCII as a marker.
func checkNewKeyName(name string) error {
	i := strings.IndexFunc(name, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-')
	})
	const rule = "a new key's name is ASCII letters, digits, \".\", \"_\" and \"-\", starting with a letter or a digit, at most 64 bytes, so that no two names look alike"
	switch {
	case name == "":
		return refuse(http.StatusBadRequest, "no name: %s", rule)
	case i >= 0:
		c, _ := utf8.DecodeRuneInString(name[i:])
		return refuse(http.StatusBadRequest, "key %q: U+%04X at byte %d: %s", name, c, i, rule)
	case name[0] == '.' || name[0] == '_' || name[0] == '-':
		return refuse(http.StatusBadRequest, "key %q: %s", name, rule)
	case len(name) > maxKeyName:
		return refuse(http.StatusBadRequest, "key %s: longer than %d bytes: %s", name, maxKeyName, rule)
	}
	return nil
}
