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
// per config, as the text between the places of the URL, so that an
// answer builds its header in one allocation without building a record.
type bareHeader struct {
	pieces []string // the field value split where the URL goes
	fixed  int      // the length of the pieces
}

// bareURLMark stands for the identifier's URL while the header is made.
const bareURLMark = "\x00"

// newBareHeader works out the bare header of an answer served in place
// by a landing page (landingPage) or not, advertising advertised.
func newBareHeader(described []signpost.Format, advertised []string, landingPage bool) bareHeader {
	subject := signpost.NewSubject(bareURLMark, landingPage, described, nil, "", nil, nil, "")
	b := bareHeader{pieces: strings.Split(subject.Header(advertised, signpost.MaxHeaderBytes)[0], bareURLMark)}
	for _, p := range b.pieces {
		b.fixed += len(p)
	}
	return b
}

// header returns the bare header of the identifier at the URL base + "/"
// + key, its one value made in one allocation; false when it would not
// fit the header's budget with that URL, which the full build then trims.
func (b *bareHeader) header(base, key string) (string, bool) {
	n := b.fixed + (len(b.pieces)-1)*(len(base)+1+len(key))
	if n+len("Link: \r\n") > signpost.MaxHeaderBytes {
		return "", false
	}
	var text strings.Builder
	text.Grow(n)
	text.WriteString(b.pieces[0])
	for _, p := range b.pieces[1:] {
		text.WriteString(base)
		text.WriteByte('/')
		text.WriteString(key)
		text.WriteString(p)
	}
	return text.String(), true
}

// bareLinkHeader returns the value of the Link header of res's answers
// when res has no metadata of its own nor by default; false otherwise.
func (h *Handler) bareLinkHeader(at info.Links, res *resolve.Resolution) (string, bool) {
	if h.hasMetadata(res) {
		return "", false
	}
	b := &h.machine.bare[0]
	if res.LandingPage {
		b = &h.machine.bare[1]
	}
	return b.header(at.Base, res.Key)
}

// hasMetadata reports whether res has metadata of its own or by default.
func (h *Handler) hasMetadata(res *resolve.Resolution) bool {
	return res.Entry != nil && len(res.Entry.Meta) > 0 || res.IsARK && h.machine.defaults.covering(res.Ark) != nil
}
