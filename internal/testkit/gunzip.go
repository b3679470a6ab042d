package testkit

import (
	"compress/gzip"
	"io"
	"os"
	"testing"
)

// Gunzip writes the gzip file src, uncompressed, to dst: a fixture kept
// compressed in testdata, such as a store file of an older format.
func Gunzip(t testing.TB, src, dst string) {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
