// Package info writes the documents an identifier answers besides its
// target: ?info metadata (ERC in ANVL, JSON, and an HTML page that the
// operator may replace), the refusal pages, the content negotiation between
// them, and the links to an identifier and its ?info
// (Links). It reads a resolve.Resolution and never the handler.
package info
