package normalize

import "strings"

// MinMaxLength is the least length limit a Parser applies: the draft forbids
// refusing an ARK of 255 code points or fewer for its length.
const MinMaxLength = 255

// ExampleNAAN is reserved for examples; it gets no special handling.
const ExampleNAAN = "12345"

// InvalidNAAN is reserved for ARKs that are invalid on purpose. It parses;
// resolvers should refuse to resolve it.
const InvalidNAAN = "99999"

// Identifier is a parsed ARK or URN.
type Identifier interface {
	// Key returns the normal form without query, components and fragment:
	// equivalent identifiers have equal keys.
	Key() string
	// String returns the full normal form.
	String() string
}

// Parser parses identifiers with a length limit. The zero Parser has none.
type Parser struct {
	// MaxLength limits an identifier's length in Unicode code points,
	// counted without its query and fragment. Zero means no limit; a value
	// below MinMaxLength counts as MinMaxLength.
	MaxLength int
}

func (p Parser) limit() int {
	if p.MaxLength <= 0 {
		return 0
	}
	return max(p.MaxLength, MinMaxLength)
}

// ParseARK parses and normalizes an Extended ARK, or the request-core of an
// Embedded ARK (what follows the resolver's prefix, query included).
func (p Parser) ParseARK(s string) (ARK, error) { return p.parseARK(s) }

// ParseURN parses and normalizes a URN.
func (p Parser) ParseURN(s string) (URN, error) { return p.parseURN(s) }

// Parse parses an ARK or a URN, chosen by its case-insensitive scheme.
func (p Parser) Parse(s string) (Identifier, error) {
	switch {
	case hasPrefixFold(s, "ark:"):
		return p.parseARK(s)
	case hasPrefixFold(s, "urn:"):
		return p.parseURN(s)
	}
	return nil, refuse(ErrNotIdentifier, 0, `an identifier starts with "ark:" or "urn:"`)
}

// Key returns the lookup key of an ARK or URN.
func (p Parser) Key(s string) (string, error) {
	switch {
	case hasPrefixFold(s, "ark:"):
		a, err := p.parseARK(s)
		return a.key, err
	case hasPrefixFold(s, "urn:"):
		u, err := p.parseURN(s)
		return u.key, err
	}
	return "", refuse(ErrNotIdentifier, 0, `an identifier starts with "ark:" or "urn:"`)
}

// ParseARK parses an ARK with no length limit.
func ParseARK(s string) (ARK, error) { return Parser{}.parseARK(s) }

// ParseURN parses a URN with no length limit.
func ParseURN(s string) (URN, error) { return Parser{}.parseURN(s) }

// Parse parses an ARK or a URN with no length limit.
func Parse(s string) (Identifier, error) { return Parser{}.Parse(s) }

// Key returns the lookup key of an ARK or URN.
func Key(s string) (string, error) { return Parser{}.Key(s) }

// Normalize returns the full normal form of an ARK or URN: the key followed
// by the query (or URN components) and fragment as written.
func Normalize(s string) (string, error) {
	id, err := Parse(s)
	if err != nil {
		return "", err
	}
	return id.String(), nil
}

// Equivalent reports whether a and b identify the same thing: whether their
// keys are equal. It fails when either does not parse.
func Equivalent(a, b string) (bool, error) {
	ka, err := Key(a)
	if err != nil {
		return false, err
	}
	kb, err := Key(b)
	if err != nil {
		return false, err
	}
	return ka == kb, nil
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && (s[:len(prefix)] == prefix || strings.EqualFold(s[:len(prefix)], prefix))
}
