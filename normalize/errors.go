package normalize

import (
	"errors"
	"strconv"
)

// The kinds of refusal. Every error returned by this package is an *Error
// whose Unwrap method returns one of these, so callers test the kind with
// errors.Is.
var (
	// ErrNotIdentifier means the input is not an ARK or URN at all: another
	// scheme, an ARK without a Name (a pseudo-ARK such as "ark:12345"), a
	// character the ARK syntax does not allow, or invalid UTF-8.
	ErrNotIdentifier = errors.New("not an identifier")
	// ErrBadNAAN means the NAAN is empty or holds something other than
	// ASCII letters and digits.
	ErrBadNAAN = errors.New("bad NAAN")
	// ErrPercentEncoding means a "%" is not followed by two hex digits.
	ErrPercentEncoding = errors.New("invalid percent-encoding")
	// ErrControl means a control character (U+0000 to U+001F, U+007F to
	// U+009F) appears, raw or percent-encoded.
	ErrControl = errors.New("control character")
	// ErrBidi means a bidirectional formatting character (Unicode
	// Bidi_Control) appears, raw or percent-encoded.
	ErrBidi = errors.New("bidirectional formatting character")
	// ErrTooLong means the identifier is longer than the Parser allows.
	ErrTooLong = errors.New("too long")
	// ErrBadURN means the input starts like a URN but breaks RFC 8141
	// syntax.
	ErrBadURN = errors.New("malformed URN")
)

// Error describes why an input was refused and where.
type Error struct {
	// Err is the kind of refusal: one of the Err sentinels.
	Err error
	// Offset is the byte offset in the input where the problem starts.
	Offset int
	// Detail says what is wrong, for people.
	Detail string
}

// Error returns the refusal as one line: kind, offset and detail.
func (e *Error) Error() string {
	return e.Err.Error() + " at byte " + strconv.Itoa(e.Offset) + ": " + e.Detail
}

// Unwrap returns the kind of refusal, so that errors.Is(err, ErrControl)
// and the like work.
func (e *Error) Unwrap() error { return e.Err }

func refuse(kind error, offset int, detail string) *Error {
	return &Error{Err: kind, Offset: offset, Detail: detail}
}

// shift moves the offset of a refusal found in a substring that starts at
// offset by in the input.
func shift(err error, by int) error {
	if e, ok := err.(*Error); ok {
		e.Offset += by
	}
	return err
}
