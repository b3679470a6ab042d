package keyhash

import (
	"fmt"
	"testing"
)

// TestStringIsStable pins values that files written by earlier versions
// hold in their indexes: a change of the function would make those files
// miss every key.
func TestStringIsStable(t *testing.T) {
	for s, want := range map[string]uint64{
		"":                           0x0,
		"ark:12345/x5wf6789":         0xac4130427a14e0a0,
		"ark:12345/u0":               0x2f9edc6b67e515e3,
		"urn:nbn:de:1111-2004033116": 0x1e2207c2ca781b67,
	} {
		if got := String(s); got != want {
			t.Errorf("String(%q) = %#x, want %#x", s, got, want)
		}
	}
}

// TestStringSpreads hashes keys that differ in one character into
// buckets by their low bits, as an open-addressing index uses them, and by
// their high bits, as its tags: no bucket holds far more than its share.
func TestStringSpreads(t *testing.T) {
	const n, buckets = 1 << 16, 1 << 10
	low, high := make([]int, buckets), make([]int, buckets)
	for i := range n {
		h := String(fmt.Sprintf("ark:12345/x5%d", i))
		low[h%buckets]++
		high[h>>54]++
	}
	for b := range buckets {
		if low[b] > 3*n/buckets || high[b] > 3*n/buckets {
			t.Fatalf("bucket %d holds %d keys by the low bits and %d by the high ones, of %d keys in %d buckets", b, low[b], high[b], n, buckets)
		}
	}
}
