package answer

import (
	"fmt"
	"strings"

	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/resolve"
)

// MetadataDefaults are metadata values that every identifier under a
// NAAN or shoulder has unless its own meta gives them: an institution's
// publisher and licence, set once rather than on every entry.
type MetadataDefaults struct {
	// Prefix is the NAAN ("ark:12345") or shoulder ("ark:12345/x5") they
	// apply under; the longest matching shoulder's apply, else the NAAN's.
	Prefix string `json:"prefix"`
	// Meta are the values by metadata name (publisher, license, type,
	// language, ... as docs/metadata-model.md lists them).
	Meta map[string]string `json:"meta"`
}

// defaultsByPrefix holds MetadataDefaults by NAAN, then shoulder ("" for
// the NAAN's own).
type defaultsByPrefix map[string]map[string]metadata.Defaults

// compileMetadataDefaults checks ds and indexes them by prefix.
func compileMetadataDefaults(ds []MetadataDefaults) (defaultsByPrefix, error) {
	out := defaultsByPrefix{}
	for i, d := range ds {
		naan, shoulder, err := normalize.ParsePrefix(d.Prefix)
		if err != nil {
			return nil, fmt.Errorf("metadata_defaults[%d]: %w", i, err)
		}
		if len(d.Meta) == 0 {
			return nil, fmt.Errorf("metadata_defaults[%d]: prefix %q: no value", i, d.Prefix)
		}
		for name, value := range d.Meta {
			if name == "" || strings.TrimSpace(value) == "" {
				return nil, fmt.Errorf("metadata_defaults[%d]: prefix %q: %q: an empty name or value", i, d.Prefix, name)
			}
		}
		if out[naan] == nil {
			out[naan] = map[string]metadata.Defaults{}
		}
		if _, dup := out[naan][shoulder]; dup {
			return nil, fmt.Errorf("metadata_defaults[%d]: prefix %q is %s, which already has defaults", i, d.Prefix, resolve.PolicyPrefix(naan, shoulder))
		}
		out[naan][shoulder] = d.Meta
	}
	return out, nil
}

// CheckMetadataDefaults checks metadata_defaults ds as Provision does.
func CheckMetadataDefaults(ds []MetadataDefaults) error {
	_, err := compileMetadataDefaults(ds)
	return err
}

// covering returns the defaults of the longest shoulder that starts a's
// Name, else of its NAAN, else nil.
func (ds defaultsByPrefix) covering(a normalize.ARK) metadata.Defaults {
	var best metadata.Defaults
	longest := -1
	for shoulder, d := range ds[a.NAAN()] {
		if len(shoulder) > longest && strings.HasPrefix(a.Name(), shoulder) {
			best, longest = d, len(shoulder)
		}
	}
	return best
}
