package answer

import (
	"net/url"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"
)

// redirectLocation returns the Location that http.Redirect, which
// file_server answers with, writes for the decoded path p: cleaned ("//"
// and "." segments removed, a trailing "/" kept) when p parses as a URL,
// and with every
// non-ASCII byte percent-encoded in lowercase hex.
func redirectLocation(p string) string {
	if _, err := url.Parse(p); err == nil {
		trailing := strings.HasSuffix(p, "/")
		if p = path.Clean(p); trailing && !strings.HasSuffix(p, "/") {
			p += "/"
		}
	}
	b := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		if p[i] >= utf8.RuneSelf {
			b = strconv.AppendInt(append(b, '%'), int64(p[i]), 16)
			continue
		}
		b = append(b, p[i])
	}
	return string(b)
}
