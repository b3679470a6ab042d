package normalize

import "strings"

// ARK is a parsed, normalized Extended ARK. The zero value is not an ARK;
// get one from ParseARK.
type ARK struct {
	key      string // normal form without query and fragment
	label    string // the label as written
	query    string // "?..." as written, or ""
	fragment string // "#..." as written, or ""
	naanEnd  int    // index in key of the "/" after the NAAN
	nameEnd  int    // index in key just past the Name
	varStart int    // index in key of the VariantPath's first ".", or len(key)
}

// Ancestor is an ARK that contains another, with the part that was dropped
// to reach it.
type Ancestor struct {
	// Key is the ancestor's key.
	Key string
	// Suffix is what was dropped, in normalized spelling: Key+Suffix is the
	// descendant's key.
	Suffix string
}

// Key returns the normal form without query and fragment: the key under
// which the ARK is looked up. Equivalent ARKs have equal keys.
func (a ARK) Key() string { return a.key }

// String returns the full normal form: the key followed by the query and
// fragment as they were written.
func (a ARK) String() string { return a.key + a.query + a.fragment }

// Label returns the label as written: "ark:" or "ark:/" in any case.
func (a ARK) Label() string { return a.label }

// NAAN returns the Name Assigning Authority Number, normalized.
func (a ARK) NAAN() string { return a.key[len("ark:"):a.naanEnd] }

// Name returns the Name, the part after the NAAN up to any qualifier.
func (a ARK) Name() string { return a.key[a.naanEnd+1 : a.nameEnd] }

// Qualifier returns the ComponentPath and VariantPath, normalized, or "".
func (a ARK) Qualifier() string { return a.key[a.nameEnd:] }

// Components returns the segments of the ComponentPath without their
// slashes, or nil.
func (a ARK) Components() []string {
	if a.nameEnd == a.varStart {
		return nil
	}
	return strings.Split(a.key[a.nameEnd+1:a.varStart], "/")
}

// Variants returns the suffixes of the VariantPath without their dots,
// sorted and deduplicated, or nil.
func (a ARK) Variants() []string {
	if a.varStart == len(a.key) {
		return nil
	}
	return strings.Split(a.key[a.varStart+1:], ".")
}

// Query returns the query as written, with its "?": "" when there is none,
// "?" for a bare question mark. For resolution the query is the inflection.
func (a ARK) Query() string { return a.query }

// Fragment returns the fragment as written, with its "#", or "".
func (a ARK) Fragment() string { return a.fragment }

// IsInfo reports whether the query asks for metadata: "?info", or "?" and
// "??", which the draft recommends treating the same.
func (a ARK) IsInfo() bool {
	return a.query == "?" || a.query == "??" || a.query == "?info"
}

// Shoulder returns the shoulder by the first-digit convention: one or more
// betanumeric letters followed by a digit at the start of the Name ("x5" in
// ark:12345/x5wf6789). It is "" when the Name does not start that way.
func (a ARK) Shoulder() string {
	name := a.Name()
	i := 0
	for i < len(name) && isBetanumericLetter(name[i]) {
		i++
	}
	if i == 0 || i == len(name) || !isDigit(name[i]) {
		return ""
	}
	return name[:i+1]
}

// Blade returns the Name after the shoulder, or the whole Name when there is
// no shoulder.
func (a ARK) Blade() string { return a.Name()[len(a.Shoulder()):] }

// Ancestors returns the ARKs that contain this one, nearest first: the ARK
// without its VariantPath, then without each component in turn, down to the
// bare NAAN/Name. It is nil for an ARK without qualifier.
func (a ARK) Ancestors() []Ancestor {
	var out []Ancestor
	if a.varStart < len(a.key) {
		out = append(out, a.cut(a.varStart))
	}
	for i := a.varStart - 1; i >= a.nameEnd; i-- {
		if a.key[i] == '/' {
			out = append(out, a.cut(i))
		}
	}
	return out
}

func (a ARK) cut(i int) Ancestor { return Ancestor{Key: a.key[:i], Suffix: a.key[i:]} }
