package resolve

// Outcome is how the handler answered a request for an identifier. Its name
// appears in the {http.ark.outcome} placeholder, logs and metrics.
type Outcome uint8

const (
	OutcomeInPlace     Outcome = iota // served in place by the next handler
	OutcomeRedirect                   // 302 or 307 to the referent
	OutcomeRelated                    // 303 to something related to the referent
	OutcomeGone                       // 410: withdrawn
	OutcomeNotFound                   // 404: not assigned here
	OutcomeInvalid                    // 400: not a valid identifier
	OutcomeTooLong                    // 414: over max_length
	OutcomeForeign                    // 302 to the global resolver
	OutcomeMetadata                   // the identifier's metadata (?info)
	OutcomeMissing                    // resolved in place, but nothing was there (404, or no handler answered)
	OutcomeUnavailable                // 503: the store or a damaged table could not be read

	NumOutcomes = iota // how many outcomes there are
)

var outcomeNames = [NumOutcomes]string{"in_place", "redirect", "related", "gone", "not_found", "invalid", "too_long", "foreign", "metadata", "missing_target", "unavailable"}

// String returns the outcome's name, as metrics and logs show it.
func (o Outcome) String() string { return outcomeNames[o] }

// outcomeOf names the answer that a status gives.
func outcomeOf(status int) Outcome {
	switch status {
	case 200:
		return OutcomeInPlace
	case 303:
		return OutcomeRelated
	case 410:
		return OutcomeGone
	}
	return OutcomeRedirect
}
