package download

import (
	"archive/zip"
	"bufio"
	"compress/gzip"
	"io"
	"time"
)

// The compressions of a download, as the request's "compression"
// parameter names them; gzip is the default.
const (
	CompressionGzip = "gzip"
	CompressionZip  = "zip"
)

// FileName is the name of a download's file, as EZID names it: base, then
// the format's extension and .gz (9c02f494ab.txt.gz), or .zip.
func FileName(base, format, compression string) string {
	if compression == CompressionZip {
		return base + ".zip"
	}
	return base + "." + fileSuffixes[format] + ".gz"
}

// compressor compresses a download to an underlying writer.
type compressor struct {
	io.Writer
	close func() error
}

// compress returns a writer of compression to w. A zip archive holds one
// file, inner (the download's name with its format's extension, as
// EZID's does), modified at modified.
func compress(w io.Writer, compression, inner string, modified time.Time) (*compressor, error) {
	if compression == CompressionZip {
		zw := zip.NewWriter(w)
		f, err := zw.CreateHeader(&zip.FileHeader{Name: inner, Method: zip.Deflate, Modified: modified})
		if err != nil {
			return nil, err
		}
		return &compressor{Writer: f, close: zw.Close}, nil
	}
	gw := gzip.NewWriter(w)
	gw.Name, gw.ModTime = inner, modified
	return &compressor{Writer: gw, close: gw.Close}, nil
}

// Gunzip returns what br holds, decompressed when it is gzip (it starts
// with gzip's magic number), else br itself: `caddy ark import` and the
// API's import read a download as EZID serves it or decompressed.
func Gunzip(br *bufio.Reader) (io.Reader, error) {
	if magic, err := br.Peek(2); err != nil || magic[0] != 0x1f || magic[1] != 0x8b {
		return br, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, err
	}
	return zr, nil
}
