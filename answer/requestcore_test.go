package answer

import (
	"net/url"
	"testing"
)

// pathAsEscaped says a path needs no escaping exactly when net/url's
// EscapedPath returns it unchanged, for every byte: requestCore then
// takes the path as it is, which must be what EscapedPath would give.
func TestPathAsEscapedIsEscapedPath(t *testing.T) {
	for c := range 256 {
		p := "/ark:12345/x" + string([]byte{byte(c)}) + "y"
		same := (&url.URL{Path: p}).EscapedPath() == p
		if got := pathAsEscaped(p); got != same {
			t.Errorf("byte %#02x: pathAsEscaped says %v, EscapedPath leaves the path as it is: %v", c, got, same)
		}
	}
}
