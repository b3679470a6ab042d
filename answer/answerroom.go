package answer

import (
	"strings"
	"sync"

	"github.com/caddy-ark/caddy-ark/resolve"
)

// answerRoom is the memory of one answer about an identifier, allocated
// once per request rather than piece by piece: the request's
// {http.ark.*} placeholders and the values of the headers the answer
// sets. It is never reused: the response's header map and Caddy's
// replacer still hold parts of it after ServeHTTP returns (net/http
// writes a body-less answer's headers, and the access log reads them and
// the placeholders, after the handler returned).
type answerRoom struct {
	vars   arkVars
	values headerValues
}

// hitRoom is an answerRoom with room for the resolution of an identifier
// the table holds, the most common answer: one allocation for both.
type hitRoom struct {
	resolve.Room
	answer answerRoom
}

// hitRooms holds hit rooms that a resolution left unused (the table did
// not hold the identifier): nothing else ever saw them, so the next
// request may take one rather than allocate it, and a miss costs only
// its answerRoom.
var hitRooms = sync.Pool{New: func() any { return new(hitRoom) }}

// answerRoomOf returns the answerRoom of the answer whose resolution res
// is: hit's when the resolution is in hit, else a new one, hit going back
// to hitRooms.
func answerRoomOf(hit *hitRoom, res *resolve.Resolution) *answerRoom {
	if hit.Holds(res) {
		return &hit.answer
	}
	hitRooms.Put(hit)
	return new(answerRoom)
}

// headerValues is room for the values of an answer's headers: Location,
// Link and Vary take theirs from it rather than each from a slice of its
// own. A nil *headerValues allocates them.
type headerValues struct {
	backing [3]string
	used    int
}

// take returns n values for one header. Each header's values are its
// own, capped where they end: a later handler that appends to them
// (Caddy's header directive rewrites an answer's values in place) cannot
// write into another's.
func (v *headerValues) take(n int) []string {
	if v == nil || v.used+n > len(v.backing) {
		return make([]string, n)
	}
	s := v.backing[v.used : v.used+n : v.used+n]
	v.used += n
	return s
}

// one returns value as the only value of a header.
func (v *headerValues) one(value string) []string {
	s := v.take(1)
	s[0] = value
	return s
}

// copyOf returns values of a header's own holding those of shared.
func (v *headerValues) copyOf(shared []string) []string {
	s := v.take(len(shared))
	copy(s, shared)
	return s
}

// arkVars provides the {http.ark.*} placeholders of one request, computed
// from its resolution only when a template, a later handler or a log asks
// for one.
type arkVars struct {
	res    *resolve.Resolution
	target string          // set once the target is built
	out    resolve.Outcome // the answer's outcome, once worked out
}

// get answers one placeholder; it is a caddy.ReplacerFunc.
func (v *arkVars) get(key string) (any, bool) {
	name, ok := strings.CutPrefix(key, resolve.PlaceholderPrefix)
	if !ok {
		return nil, false
	}
	res := v.res
	switch name {
	case "outcome":
		return v.out.String(), true
	case "target":
		return v.target, true
	case "id":
		return res.Key, true
	case "suffix":
		return res.Suffix, true
	case "via":
		return res.Via, true
	}
	if !res.IsARK {
		return nil, false
	}
	switch name {
	case "naan":
		return res.Ark.NAAN(), true
	case "name":
		return res.Ark.Name(), true
	case "shoulder":
		return res.Shoulder, true
	case "blade":
		return res.Ark.Name()[len(res.Shoulder):], true
	}
	return nil, false
}
