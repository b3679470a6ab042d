package store

import (
	"strings"
	"testing"
)

func TestPrefixEnd(t *testing.T) {
	for _, tt := range []struct {
		prefix, end string
		ok          bool
	}{
		{"", "", false},
		{"ark:12345/x5", "ark:12345/x6", true},
		{"ark:12345/", "ark:123450", true},
		{"a\u00e9", "a\u00ea", true},
		{"a\U0010FFFF", "b", true},
		{"\U0010FFFF\U0010FFFF", "", false},
		{"a\uD7FF", "a\uE000", true},
		{"a\xff", "b", true},
		{"a\xc3", "a\xc4", true},
	} {
		end, ok := PrefixEnd(tt.prefix)
		if end != tt.end || ok != tt.ok {
			t.Errorf("PrefixEnd(%q) = %q, %v; want %q, %v", tt.prefix, end, ok, tt.end, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		// Every string with the prefix is below the end; the end and the
		// strings just past it do not have the prefix.
		for _, s := range []string{tt.prefix, tt.prefix + "\x00", tt.prefix + "zzz", tt.prefix + "\U0010FFFF\U0010FFFF"} {
			if s >= end {
				t.Errorf("PrefixEnd(%q) = %q, not above %q", tt.prefix, end, s)
			}
		}
		if strings.HasPrefix(end, tt.prefix) {
			t.Errorf("PrefixEnd(%q) = %q has the prefix", tt.prefix, end)
		}
	}
}
