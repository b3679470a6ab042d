package normalize

import "unsafe"

// builder writes a normal form while reading its input. As long as the
// output is a prefix of the input it holds no copy (the output is src[:n]),
// so an input that is already normal yields its key without allocating.
type builder struct {
	src string
	n   int    // while buf is nil, the output is src[:n]
	buf []byte // the output, once it has diverged from src
}

// keep emits src[i] unchanged.
func (b *builder) keep(i int) {
	if b.buf == nil && b.n == i {
		b.n++
		return
	}
	b.byte(b.src[i])
}

// byte emits c.
func (b *builder) byte(c byte) {
	if b.buf == nil {
		b.buf = make([]byte, b.n, len(b.src)+16)
		copy(b.buf, b.src[:b.n])
	}
	b.buf = append(b.buf, c)
}

// pct emits the percent-encoding of c with uppercase hex.
func (b *builder) pct(c byte) {
	b.byte('%')
	b.byte(upperHex[c>>4])
	b.byte(upperHex[c&0xf])
}

// keepPct emits the triplet at src[i:i+3] for octet c, reusing the input
// when it is already uppercase.
func (b *builder) keepPct(i int, c byte) {
	if b.src[i+1] == upperHex[c>>4] && b.src[i+2] == upperHex[c&0xf] {
		b.keep(i)
		b.keep(i + 1)
		b.keep(i + 2)
		return
	}
	b.pct(c)
}

// len returns the length of the output so far.
func (b *builder) len() int {
	if b.buf == nil {
		return b.n
	}
	return len(b.buf)
}

// last returns the last byte of the output; ok is false when it is empty.
func (b *builder) last() (c byte, ok bool) {
	if b.buf == nil {
		if b.n == 0 {
			return 0, false
		}
		return b.src[b.n-1], true
	}
	if len(b.buf) == 0 {
		return 0, false
	}
	return b.buf[len(b.buf)-1], true
}

// truncate cuts the output to n bytes.
func (b *builder) truncate(n int) {
	if b.buf == nil {
		b.n = n
		return
	}
	b.buf = b.buf[:n]
}

// String returns the output. The builder must not be written to after:
// the string shares its buffer, as strings.Builder's does.
func (b *builder) String() string {
	if b.buf == nil {
		return b.src[:b.n]
	}
	return unsafe.String(unsafe.SliceData(b.buf), len(b.buf))
}
