package download

import "github.com/caddy-ark/caddy-ark/ezid/anvl"

// A download's records are anvl.Record values, whatever the format: an
// identifier as EZID spells it (ark:/12345/x5wf6789) and its elements,
// in the order they are written or were read (internal elements such as
// _target and _status, citation elements such as erc.who and
// datacite.title, whole-record documents such as datacite), and the line
// where a record read from a source starts.

// get returns the value of the element name of r, "" when it has none.
func get(r *anvl.Record, name string) string {
	for _, e := range r.Elements {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}
