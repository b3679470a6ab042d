package info

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
