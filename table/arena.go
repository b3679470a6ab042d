package table

import "unsafe"

// arenaChunkBits sets the largest size of an arena chunk: 4 MiB. An arena
// offset is the chunk's index above these bits and the offset in the chunk
// below them.
const arenaChunkBits = 22

// arenaFirstChunkBits sets the size of an arena's first chunk: 64 KiB. Each
// chunk after it is twice the size of the one before, up to 4 MiB, so that
// a small table (a Caddyfile's maps) stays small.
const arenaFirstChunkBits = 16

// arena stores the bytes of a table's keys and targets in large chunks, so
// that a million entries cost a million short byte runs rather than two
// million separately allocated strings. Bytes are only ever appended within
// a chunk's capacity, so they never move and never change once written,
// which is what makes the strings returned by str safe to share.
type arena struct {
	chunks [][]byte
}

// arenaMaxChunks is how many chunks 32-bit offsets can address: up to 4 GiB.
const arenaMaxChunks = 1 << (32 - arenaChunkBits)

// add appends a and b together and returns the offset of a; b starts at
// offset+len(a). Each of a and b is shorter than 64 KiB. ok is false when
// the arena is full.
func (ar *arena) add(a, b string) (off uint32, ok bool) {
	n := len(a) + len(b)
	last := len(ar.chunks) - 1
	if last < 0 || len(ar.chunks[last])+n > cap(ar.chunks[last]) {
		if len(ar.chunks) == arenaMaxChunks {
			return 0, false
		}
		size := 1 << min(arenaFirstChunkBits+len(ar.chunks), arenaChunkBits)
		ar.chunks = append(ar.chunks, make([]byte, 0, max(size, n)))
		last++
	}
	c := ar.chunks[last]
	off = uint32(last)<<arenaChunkBits | uint32(len(c))
	c = append(c, a...)
	ar.chunks[last] = append(c, b...)
	return off, true
}

// str returns the n bytes at off as a string, without copying.
func (ar *arena) str(off uint32, n int) string {
	if n == 0 {
		return ""
	}
	c := ar.chunks[off>>arenaChunkBits]
	return unsafe.String(&c[off&(1<<arenaChunkBits-1)], n)
}
