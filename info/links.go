package info

import (
	"net/http"

	"github.com/caddy-ark/caddy-ark/resolve"
)

// Links says where this site's links to itself point, for one request.
type Links struct {
	// Base is the URL identifiers are appended to, without a trailing "/":
	// base_url, or the scheme, host and service prefix; the prefix alone,
	// making links path-absolute references, when the host is not known.
	Base string
	// Who names the site in ?info's commitment: the organization when
	// configured, else base_url's host, or the request's host when it is
	// known; "" otherwise.
	Who string
}

// IdentifierURL is the canonical URL of the identifier key on this site.
func (s Links) IdentifierURL(key string) string {
	return s.Base + "/" + key
}

// InfoURL is the URL of the metadata about the identifier key.
func (s Links) InfoURL(key string) string {
	return s.IdentifierURL(key) + "?info"
}

// AddLinks adds the Link headers of an answer for a resolved identifier:
// describedby to its metadata (ARKs only: ?info is not URN syntax), and
// cite-as (RFC 8574) to its canonical URL when it is served in place.
func (s Links) AddLinks(h http.Header, res *resolve.Resolution) {
	switch res.Outcome {
	case resolve.OutcomeInPlace, resolve.OutcomeRedirect, resolve.OutcomeRelated, resolve.OutcomeGone:
	default:
		return
	}
	if res.IsARK {
		h["Link"] = append(h["Link"], "<"+s.Base+"/"+res.Key+`?info>; rel="describedby"`)
	}
	if res.Outcome == resolve.OutcomeInPlace {
		h["Link"] = append(h["Link"], "<"+s.Base+"/"+res.Key+`>; rel="cite-as"`)
	}
}
