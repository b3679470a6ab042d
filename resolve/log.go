package resolve

import "go.uber.org/zap/zapcore"

// MarshalLogObject adds the resolution's identifier and outcome to a log
// entry ("ark_id", "ark_outcome").
func (res *Resolution) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	return Answer{ID: res.Key, Outcome: res.Outcome}.MarshalLogObject(enc)
}

// Answer is an identifier with the outcome of a request for it, as logged
// when the request was refused after resolution.
type Answer struct {
	ID      string // normalized; "" when the request was not a valid identifier
	Outcome Outcome
}

// MarshalLogObject adds the identifier, when there is one, and the outcome
// to a log entry.
func (a Answer) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	if a.ID != "" {
		enc.AddString("ark_id", a.ID)
	}
	enc.AddString("ark_outcome", a.Outcome.String())
	return nil
}
