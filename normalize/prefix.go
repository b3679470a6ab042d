package normalize

import (
	"errors"
	"fmt"
	"strings"
)

// ParsePrefix reads the prefix of a set of ARKs, "ark:NAAN/shoulder" or
// "ark:NAAN" in any equivalent spelling, as templates, policies, minters and
// API key scopes name them, and returns its NAAN and shoulder in normal form
// (shoulder "" for a whole NAAN).
func ParsePrefix(prefix string) (naan, shoulder string, err error) {
	a, err := ParseARK(prefix)
	if errors.Is(err, ErrNotIdentifier) && !strings.Contains(strings.TrimPrefix(prefix[min(len(prefix), 4):], "/"), "/") {
		// A bare NAAN is an ARK without a Name; read it by giving it one.
		if a, err = ParseARK(prefix + "/0"); err == nil {
			return a.NAAN(), "", nil
		}
	}
	if err != nil {
		return "", "", fmt.Errorf("prefix %q: %w", prefix, err)
	}
	if a.Qualifier() != "" || a.Query() != "" || a.Fragment() != "" {
		return "", "", fmt.Errorf("prefix %q: a shoulder is the start of a Name, without qualifier or query", prefix)
	}
	return a.NAAN(), a.Name(), nil
}
