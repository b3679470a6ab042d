package api

import (
	"strings"
	"testing"
)

// repeatedKey names the object a repeated key is in, through arrays, and
// compares the entry's own keys regardless of case only.
func TestRepeatedKeyNamesItsObject(t *testing.T) {
	for data, want := range map[string]string{
		`{"a": [{"x": 1}, {"x": 2, "x": 3}]}`: `a "x" appears twice`,
		`{"meta": {"who": "a", "Who": "b"}}`:  "",
		`{"meta": {}, "META": {}}`:            `"META" appears twice in the entry`,
		`{"a": {"b": {"c": 1, "c": 2}}}`:      `b "c" appears twice`,
		`[1, {"a": 1}, {"a": 2}]`:             "",
	} {
		err := repeatedKey([]byte(data))
		if want == "" && err != nil || want != "" && (err == nil || !strings.HasPrefix(err.Error(), want)) {
			t.Errorf("%s: %v, want %q", data, err, want)
		}
	}
}
