package importer

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// A character cut by the end of a read is checked whole, and the line
// and column of a byte that is not UTF-8 are those of the source.
func TestDecoderAcrossReads(t *testing.T) {
	in := "a,Musée 北京 😀\nb,ok\n"
	for _, r := range []io.Reader{strings.NewReader(in), iotest.OneByteReader(strings.NewReader(in)), iotest.HalfReader(strings.NewReader(in))} {
		got, err := io.ReadAll(newDecoder(r, false))
		if err != nil || string(got) != in {
			t.Errorf("%q, %v", got, err)
		}
	}
	for _, c := range []struct {
		in           string
		line, column int
	}{
		{"ok\nab\xe9\n", 2, 3},
		{"\xff", 1, 1},
		{"é\xe9", 1, 3},
		{"x\xe2\x82", 1, 2},     // cut at the end of the input
		{"x\xed\xa0\x80", 1, 2}, // a surrogate
	} {
		for _, r := range []io.Reader{strings.NewReader(c.in), iotest.OneByteReader(strings.NewReader(c.in))} {
			_, err := io.ReadAll(newDecoder(r, false))
			var e *EncodingError
			if !errors.As(err, &e) || e.Line != c.line || e.Column != c.column {
				t.Errorf("%q: %v, want line %d column %d", c.in, err, c.line, c.column)
			}
		}
	}
	got, err := io.ReadAll(newDecoder(iotest.OneByteReader(bytes.NewReader([]byte("M\xfcller \xa9\xff"))), true))
	if err != nil || string(got) != "Müller ©ÿ" {
		t.Errorf("latin1: %q, %v", got, err)
	}
}
