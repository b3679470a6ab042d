package ark

// outcome is how the handler answered a request for an identifier. Its name
// appears in the {http.ark.outcome} placeholder, logs and metrics.
type outcome uint8

const (
	outcomeInPlace     outcome = iota // served in place by the next handler
	outcomeRedirect                   // 302 or 307 to the referent
	outcomeRelated                    // 303 to something related to the referent
	outcomeGone                       // 410: withdrawn
	outcomeNotFound                   // 404: not assigned here
	outcomeInvalid                    // 400: not a valid identifier
	outcomeTooLong                    // 414: over max_length
	outcomeForeign                    // 302 to the global resolver
	outcomeMetadata                   // the identifier's metadata (?info)
	outcomeMissing                    // resolved in place, but nothing was there (404, or no handler answered)
	outcomeUnavailable                // 503: the store or a damaged table could not be read

	numOutcomes = iota // how many outcomes there are
)

var outcomeNames = [numOutcomes]string{"in_place", "redirect", "related", "gone", "not_found", "invalid", "too_long", "foreign", "metadata", "missing_target", "unavailable"}

func (o outcome) String() string { return outcomeNames[o] }

// outcomeOf names the answer that a status gives.
func outcomeOf(status int) outcome {
	switch status {
	case 200:
		return outcomeInPlace
	case 303:
		return outcomeRelated
	case 410:
		return outcomeGone
	}
	return outcomeRedirect
}
