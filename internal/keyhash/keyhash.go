// Package keyhash hashes identifiers for the indexes kept in files (a
// compiled table's, a local copy's base). Unlike hash/maphash, its values
// are the same in every process and on every machine, as an index
// written by one process and read by another needs: changing it makes
// every such file unreadable.
package keyhash

// String hashes s.
func String(s string) uint64 {
	const m = 0x9e3779b97f4a7c15
	h := uint64(len(s)) * m
	for ; len(s) >= 8; s = s[8:] {
		w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		h = (h ^ w) * m
		h ^= h >> 32
	}
	var w uint64
	for i := range len(s) {
		w |= uint64(s[i]) << (8 * i)
	}
	h = (h ^ w) * m
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}
