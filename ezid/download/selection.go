package download

import (
	"net/url"
	"slices"
	"strings"

	"github.com/caddy-ark/caddy-ark/ezid/anvl"
)

// Selection is the search constraints of a download request: a record is
// selected when it meets all of them; a constraint repeated (status,
// type, profile) is met by any of its values. The zero Selection selects
// every record.
type Selection struct {
	// Bounds of _created and _updated, in seconds since 1970: the lower
	// bounds inclusive, the upper exclusive; nil for none.
	CreatedAfter, CreatedBefore, UpdatedAfter, UpdatedBefore *int64
	// Registered with Crossref (_crossref), with DataCite (_datacenter),
	// exported (_export, yes when absent); nil for either.
	Crossref, DataCite, Exported *bool
	// "test" (an ARK under NAAN 99999, EZID's test DOI prefix
	// 10.5072) or "real"; "" for either.
	Permanence string
	// The preferred profiles (_profile), statuses (reserved, public,
	// unavailable) and types (ark, doi, uuid, and this project's urn)
	// selected; none for any.
	Profiles, Statuses, Types []string
	// The owners (_owner) and owning groups (_ownergroup) selected: a
	// record of any of them is.
	Owners, OwnerGroups []string
}

// selection reads the constraints of a request's parameters, checked
// already.
func selection(form url.Values) Selection {
	var s Selection
	for k, p := range map[string]**int64{"createdAfter": &s.CreatedAfter, "createdBefore": &s.CreatedBefore,
		"updatedAfter": &s.UpdatedAfter, "updatedBefore": &s.UpdatedBefore} {
		if v := form.Get(k); v != "" {
			t, _ := parseTime(v)
			*p = &t
		}
	}
	for k, p := range map[string]**bool{"crossref": &s.Crossref, "datacite": &s.DataCite, "exported": &s.Exported} {
		if v := form.Get(k); v != "" {
			yes := v == "yes"
			*p = &yes
		}
	}
	s.Permanence = form.Get("permanence")
	s.Profiles, s.Statuses, s.Types = form["profile"], form["status"], form["type"]
	return s
}

// Selects reports whether r meets the constraints of s.
func (s *Selection) Selects(r *anvl.Record) bool {
	if !within(get(r, "_created"), s.CreatedAfter, s.CreatedBefore) || !within(get(r, "_updated"), s.UpdatedAfter, s.UpdatedBefore) {
		return false
	}
	if !is(s.Crossref, get(r, "_crossref") != "") || !is(s.DataCite, get(r, "_datacenter") != "") ||
		!is(s.Exported, strings.TrimSpace(get(r, "_export")) != "no") {
		return false
	}
	if s.Permanence != "" && (s.Permanence == "test") != isTest(r.ID) {
		return false
	}
	profile := strings.TrimSpace(get(r, "_profile"))
	if profile == "" {
		profile = "erc"
	}
	status, _, _ := strings.Cut(get(r, "_status"), "|")
	if status = strings.TrimSpace(status); status == "" {
		status = "public"
	}
	kind, _, _ := strings.Cut(r.ID, ":")
	return anyOf(s.Profiles, profile) && anyOf(s.Statuses, status) && anyOf(s.Types, strings.ToLower(kind)) &&
		(len(s.Owners)+len(s.OwnerGroups) == 0 || slices.Contains(s.Owners, get(r, "_owner")) ||
			slices.Contains(s.OwnerGroups, get(r, "_ownergroup")))
}

// within reports whether the time v is within [after, before); a record
// without the time is outside every bound.
func within(v string, after, before *int64) bool {
	if after == nil && before == nil {
		return true
	}
	t, ok := parseTime(v)
	return ok && (after == nil || t >= *after) && (before == nil || t < *before)
}

func is(want *bool, got bool) bool { return want == nil || *want == got }

func anyOf(values []string, v string) bool { return len(values) == 0 || slices.Contains(values, v) }

// isTest reports whether id, in EZID's spelling, is a test identifier: an
// ARK under NAAN 99999 or a DOI under EZID's test prefix 10.5072.
func isTest(id string) bool {
	id = strings.ToLower(id)
	return strings.HasPrefix(id, "ark:/99999/") || strings.HasPrefix(id, "ark:99999/") || strings.HasPrefix(id, "doi:10.5072/")
}
