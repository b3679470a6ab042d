package resolve

import (
	"fmt"
	"strings"

	"github.com/caddy-ark/caddy-ark/normalize"
)

// Policy is the site's persistence statement for every ARK under a NAAN or
// a shoulder. The ?info inflection shows it with each identifier it
// covers, and on the NAAN or shoulder itself ("ark:12345?info").
type Policy struct {
	// The ARKs the statement covers: a shoulder ("ark:12345/t3", every ARK
	// whose Name starts with "t3") or a bare NAAN ("ark:12345"). The
	// longest matching shoulder wins over the NAAN.
	Prefix string `json:"prefix"`

	// The statement itself, for example "Permanent: identifiers under this
	// NAAN are never reassigned; content may be corrected."
	Statement string `json:"statement"`
}

// PolicyInfo is a policy as shown in a metadata record.
type PolicyInfo struct {
	// Prefix is the normalized NAAN or shoulder, "ark:12345" or "ark:12345/t3".
	Prefix string `json:"prefix"`
	// Statement is the persistence statement.
	Statement string `json:"statement"`
}

// Policies holds the compiled policies by NAAN, then by shoulder ("" for
// the NAAN's own).
type Policies map[string]map[string]*PolicyInfo

// CompilePolicies validates ps and indexes them. Two policies for the same
// NAAN or shoulder, in any spelling, are an error.
func CompilePolicies(ps []Policy) (Policies, error) {
	out := Policies{}
	for i, p := range ps {
		naan, shoulder, err := normalize.ParsePrefix(p.Prefix)
		if err != nil {
			return nil, fmt.Errorf("policies[%d]: %w", i, err)
		}
		if strings.TrimSpace(p.Statement) == "" {
			return nil, fmt.Errorf("policies[%d]: prefix %q: the statement is empty", i, p.Prefix)
		}
		if out[naan] == nil {
			out[naan] = map[string]*PolicyInfo{}
		}
		info := &PolicyInfo{Prefix: PolicyPrefix(naan, shoulder), Statement: p.Statement}
		if _, dup := out[naan][shoulder]; dup {
			return nil, fmt.Errorf("policies[%d]: prefix %q is %s, which already has a policy", i, p.Prefix, info.Prefix)
		}
		out[naan][shoulder] = info
	}
	return out, nil
}

// PolicyPrefix spells a NAAN or shoulder in normal form.
func PolicyPrefix(naan, shoulder string) string {
	if shoulder == "" {
		return "ark:" + naan
	}
	return "ark:" + naan + "/" + shoulder
}

// Covering returns the policy that covers a: the longest shoulder that
// starts its Name, else its NAAN's, else nil.
func (ps Policies) Covering(a normalize.ARK) *PolicyInfo {
	byShoulder := ps[a.NAAN()]
	var best *PolicyInfo
	longest := -1
	for shoulder, p := range byShoulder {
		if len(shoulder) > longest && strings.HasPrefix(a.Name(), shoulder) {
			best, longest = p, len(shoulder)
		}
	}
	return best
}

// Exact returns the policy of exactly this NAAN and shoulder ("" for the
// NAAN), or nil.
func (ps Policies) Exact(naan, shoulder string) *PolicyInfo {
	return ps[naan][shoulder]
}
