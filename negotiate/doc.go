// Package negotiate chooses among media types by a request's Accept
// header, as RFC 9110 section 12.5.1 says: each offered type takes the
// quality of the most specific media range that matches it (type/subtype,
// then type/*, then */*), q=0 means "not acceptable", and ties go to the
// earlier offer. It reads header values as they come, without allocating,
// since every resolution asks it.
package negotiate
