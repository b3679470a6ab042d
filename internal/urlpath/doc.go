// Package urlpath builds targets from what the operator wrote and what a
// request brought, and owns the rule that keeps request data from reaching
// a hidden file or climbing out of a directory: no path segment that request
// data creates or extends may decode, in any encoding, to something starting
// with ".", or hold a backslash or control character. It imports nothing from
// this module.
package urlpath
