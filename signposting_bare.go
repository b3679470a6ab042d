package ark

import (
	"strings"

	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/signpost"
)

// bareHeader is the Link header of an identifier that has no metadata of
// its own nor by default, the most common kind in a large table: the same
// links for every such identifier but for its URL. It is worked out once
// per config, as each line's text before and after the URL, so that an
// answer builds its header in one string without building a record.
type bareHeader struct {
	lines []bareLine
	fixed int // the lines' length without their URLs
	urls  int // how many lines hold the URL
}

// bareLine is one line of a bare header: its text before the URL and
// after it, or all of it when it holds no URL (the landing page's type).
type bareLine struct {
	before, after string
	hasURL        bool
}

// bareURLMark stands for the identifier's URL while the lines are made.
const bareURLMark = "\x00"

// newBareHeader works out the bare header of an answer served in place
// (inPlace) or not, advertising advertised.
func newBareHeader(described []signpost.Format, advertised []string, inPlace bool) bareHeader {
	subject := signpost.NewSubject(bareURLMark, inPlace, described, nil, "", nil, nil, "")
	var b bareHeader
	for _, v := range subject.Header(advertised, signpost.MaxHeaderBytes) {
		before, after, hasURL := strings.Cut(v, bareURLMark)
		b.lines = append(b.lines, bareLine{before, after, hasURL})
		b.fixed += len(before) + len(after)
		if hasURL {
			b.urls++
		}
	}
	return b
}

// header returns the bare header of the identifier at the URL base + "/"
// + key, in one allocation for its text; false when its lines with that
// URL would not all fit the header's budget, which the full build then
// trims.
func (b *bareHeader) header(base, key string) ([]string, bool) {
	urlLen := len(base) + 1 + len(key)
	n := b.fixed + b.urls*urlLen
	if n+len(b.lines)*len("Link: \r\n") > signpost.MaxHeaderBytes {
		return nil, false
	}
	var text strings.Builder
	text.Grow(n)
	for _, l := range b.lines {
		text.WriteString(l.before)
		if l.hasURL {
			text.WriteString(base)
			text.WriteByte('/')
			text.WriteString(key)
		}
		text.WriteString(l.after)
	}
	all := text.String()
	values := make([]string, len(b.lines))
	off := 0
	for i, l := range b.lines {
		end := off + len(l.before) + len(l.after)
		if l.hasURL {
			end += urlLen
		}
		values[i] = all[off:end]
		off = end
	}
	return values, true
}

// bareLinkHeader returns the Link header of res's answers when res has no
// metadata of its own nor by default; false otherwise.
func (h *Handler) bareLinkHeader(at info.Links, res *resolve.Resolution) ([]string, bool) {
	if res.Entry != nil && len(res.Entry.Meta) > 0 || res.IsARK && h.machine.defaults.covering(res.Ark) != nil {
		return nil, false
	}
	b := &h.machine.bare[0]
	if res.Outcome == resolve.OutcomeInPlace {
		b = &h.machine.bare[1]
	}
	return b.header(at.Base, res.Key)
}
