package api

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"
)

// badChar returns the reason why text cannot be stored, "" when it can:
// it is not UTF-8, or holds a NUL or another C0 control character or
// DEL, which PostgreSQL refuses (NUL) or keeps where bbolt keeps them
// (the others), and which no reader of a metadata format takes (XML 1.0
// has no place for them). With lines, tab, line feed and carriage return
// are allowed, as a multi-line text has them; without, a name, they are
// not either.
func badChar(text string, lines bool) string {
	if !utf8.ValidString(text) {
		return "is not UTF-8"
	}
	i := strings.IndexFunc(text, func(r rune) bool {
		if lines && (r == '\t' || r == '\n' || r == '\r') {
			return false
		}
		return r < 0x20 || r == 0x7f
	})
	if i < 0 {
		return ""
	}
	allowed := "remove it"
	if lines {
		allowed += " (tab, line feed and carriage return are allowed)"
	}
	return fmt.Sprintf("holds U+%04X at byte %d, a control character: %s", text[i], i, allowed)
}

// checkMetaText refuses, 400, metadata of key whose names or values hold
// a character badChar refuses.
func checkMetaText(key string, meta map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(meta)) {
		if why := badChar(k, false); why != "" {
			return refuse(http.StatusBadRequest, "%s: a meta name %s", key, why)
		}
		if why := badChar(meta[k], true); why != "" {
			return refuse(http.StatusBadRequest, "%s: meta %q %s", key, k, why)
		}
	}
	return nil
}
