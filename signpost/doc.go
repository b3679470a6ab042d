// Package signpost builds the FAIR Signposting of an identifier
// (signposting.org/FAIR): the typed links of Level 1 that every answer
// for a resolved identifier carries in its Link header (RFC 8288), and
// the Level 2 linkset (RFC 9264) in both of its media types, which holds
// them all with the links of each metadata resource and content item back
// to the identifier. A Subject says what one identifier's links are; it
// is built once per entry and its Header kept, not rebuilt per request.
package signpost
