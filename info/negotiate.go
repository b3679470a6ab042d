package info

import (
	"strconv"
	"strings"
)

// Format is a representation of a metadata record.
type Format uint8

const (
	formatANVL Format = iota // text/plain: an ERC record in ANVL, the default
	FormatJSON               // application/json
	FormatHTML               // text/html
)

// formatTypes are the media types of the formats, in order of preference
// when the client accepts several equally.
var formatTypes = [...]string{formatANVL: "text/plain", FormatJSON: "application/json", FormatHTML: "text/html"}

// ContentTypes are the Content-Type headers of the formats.
var ContentTypes = [...]string{formatANVL: "text/plain; charset=utf-8", FormatJSON: "application/json", FormatHTML: "text/html; charset=utf-8"}

// Negotiate picks the format that the Accept header values prefer: the one
// with the highest quality, ties going to the earlier in formatTypes. Without
// Accept, or when it accepts none of them, the answer is text/plain:
// refusing with 406 would help no one.
func Negotiate(accept []string) Format {
	best, bestQ := formatANVL, 0.0
	for f, mediaType := range formatTypes {
		if q := quality(accept, mediaType); q > bestQ {
			best, bestQ = Format(f), q
		}
	}
	return best
}

// quality returns the q-value that accept gives mediaType through its most
// specific matching range (type/subtype, then type/*, then */*), 0 when no
// range matches, 1 when there is no Accept header at all.
func quality(accept []string, mediaType string) float64 {
	if len(accept) == 0 {
		return 1
	}
	typ, _, _ := strings.Cut(mediaType, "/")
	q, specificity := 0.0, -1
	for _, header := range accept {
		for _, item := range strings.Split(header, ",") {
			params := strings.Split(item, ";")
			r := strings.ToLower(strings.TrimSpace(params[0]))
			s := -1
			switch r {
			case mediaType:
				s = 2
			case typ + "/*":
				s = 1
			case "*/*":
				s = 0
			}
			if s > specificity {
				q, specificity = qParam(params[1:]), s
			}
		}
	}
	return q
}

// qParam reads the q parameter among a media range's parameters (default 1).
func qParam(params []string) float64 {
	for _, p := range params {
		name, value, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(strings.TrimSpace(name), "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
			if err != nil || q < 0 || q > 1 {
				return 0
			}
			return q
		}
	}
	return 1
}
