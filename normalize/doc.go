// Package normalize parses ARKs (Archival Resource Keys, draft-ark-uri-scheme)
// and URNs (RFC 8141) and reduces each to a normal form, so that two
// identifiers are the same exactly when their keys are equal.
//
// An ARK's key is its normal form without query and fragment: the label
// becomes "ark:", hex digits of percent-encodings are uppercased, encoded
// unreserved characters and hyphens are decoded, every hyphen is deleted,
// variant suffixes are sorted and deduplicated, and non-ASCII characters are
// percent-encoded. Common damage seen in the wild (an uppercase NAAN, a
// trailing or doubled "/" or ".", Unicode hyphen look-alikes) is repaired
// first. A URN's key lowercases "urn" and the NID and uppercases the hex of
// percent-encodings in the NSS, which are never decoded.
//
// Every refusal is an *Error wrapping one of the Err sentinels, with the byte
// offset of the problem. The package has no dependencies outside the
// standard library.
package normalize
