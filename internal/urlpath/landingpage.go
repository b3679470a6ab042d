package urlpath

import (
	"mime"
	"path"
	"strings"
)

// LandingPage reports whether a local target, served in place, is a
// landing page (a web page about the referent) rather than content of
// its own, by the media type its extension gives, as a file server that
// serves it does: HTML or XHTML, or a directory (its index page), or a
// name without an extension (a page behind clean URLs). A CSV, PDF or
// image file is content. The query and fragment are not looked at.
func LandingPage(target string) bool {
	p := target
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	if p == "" || strings.HasSuffix(p, "/") {
		return true
	}
	ext := path.Ext(p[strings.LastIndexByte(p, '/')+1:])
	if ext == "" {
		return true
	}
	typ, _, _ := strings.Cut(mime.TypeByExtension(ext), ";")
	return typ == "text/html" || typ == "application/xhtml+xml"
}
