package oai

import "errors"

// DefaultConcurrentLists is how many lists the provider reads at once
// when concurrent_lists is not given; MaxConcurrentLists bounds it.
const (
	DefaultConcurrentLists = 2
	MaxConcurrentLists     = 1000
)

// retryAfter is the Retry-After, in seconds, of a request refused because
// as many lists as allowed are being read.
const retryAfter = "5"

// errBusy is the refusal of a request that would read a list while as
// many as allowed are being read.
var errBusy = errors.New("as many lists as the provider reads at once are being read")

// scanSlots bounds how many requests read a list at once: the requests
// that read the store's history or every record, whose cost grows with
// the repository, so that harvesters cannot starve resolution.
type scanSlots chan struct{}

// take takes a slot without waiting, returning what gives it back; false
// when none is free.
func (s scanSlots) take() (release func(), ok bool) {
	select {
	case s <- struct{}{}:
		return func() { <-s }, true
	default:
		return nil, false
	}
}
