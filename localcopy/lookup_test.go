package localcopy_test

import (
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/localcopy"
	"github.com/caddy-ark/caddy-ark/store/storetest"
)

// TestCopyLookupAcrossTheBase looks up, in a copy whose base holds enough
// bindings for its index's searches to run past other keys' slots and
// wrap around its end, every key the store holds, and keys it does not
// hold that sort before, between and after them: the copy answers each
// as the store does.
func TestCopyLookupAcrossTheBase(t *testing.T) {
	s := backends[0].open(t)
	const n = 1000
	importN(t, s, n)
	c := openCopy(t, t.TempDir(), s, localcopy.Options{Poll: time.Hour})
	absent := []string{"", "ark:12345/x4", "ark:12345/x5", "ark:12345/x6", "ark:12345/zzz", "ark:99999/x5"}
	for i := range n + 1 {
		absent = append(absent, storetest.Key(i)+"/c1", storetest.Key(i)+"0")
	}
	sameAsStore(t, c, s, absent...)
}
