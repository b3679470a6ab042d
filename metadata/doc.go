// Package metadata is the one description of an identifier's referent that
// every machine-readable format writes: a Record, built from an entry's
// meta (its documented names, and the datacite.*, dc.* and erc.* fields
// of EZID exports), the identifier itself (its normalized form, canonical
// URL, target and status), the defaults a NAAN or shoulder sets, and the
// site's organization. Each format is a subpackage of its own (datacite,
// schemaorg, csl, bibtex, ris, citation, turtle, erc) with a Write function
// and its media type, so one crosswalk serves content negotiation, FAIR
// signposting and OAI-PMH alike.
//
// The documented names, each with one meaning in every format, are the Key
// constants; docs/metadata-model.md gives their syntax, the precedence of
// EZID's fields and the crosswalk per format. A value the record lacks is
// never invented: a format that requires it writes its own code for an
// unknown value (Unavailable, "(:unav)", in DataCite and ERC) or leaves
// the element out.
//
// The package is free of Caddy; it imports normalize only.
package metadata
