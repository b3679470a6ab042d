package download

import (
	"strings"

	"github.com/caddy-ark/caddy-ark/ezid/anvl"
)

// mappedColumns are the CSV columns EZID computes from a record's
// citation metadata (_mappedCreator …), with the elements each is read
// from, by profile.
var mappedColumns = map[string]map[string]string{
	"_mappedCreator":   {"erc": "erc.who", "datacite": "datacite.creator", "dc": "dc.creator"},
	"_mappedTitle":     {"erc": "erc.what", "datacite": "datacite.title", "dc": "dc.title"},
	"_mappedPublisher": {"datacite": "datacite.publisher", "dc": "dc.publisher"},
	"_mappedDate":      {"erc": "erc.when", "datacite": "datacite.publicationyear", "dc": "dc.date"},
	"_mappedType":      {"datacite": "datacite.resourcetype", "dc": "dc.type"},
}

// mappedProfiles is the order in which the profiles other than the
// record's own are looked in: DataCite's first, as EZID itself gives them
// priority, then Dublin Core's, then ERC's.
var mappedProfiles = []string{"datacite", "dc", "erc"}

// mapped returns the value of a _mapped column: the element of the
// record's preferred profile (_profile) when it has one, else the first
// of the other profiles' that it has.
func mapped(r *anvl.Record, column string) string {
	fields := mappedColumns[column]
	if name, ok := fields[get(r, "_profile")]; ok {
		if v := strings.TrimSpace(get(r, name)); v != "" {
			return v
		}
	}
	for _, p := range mappedProfiles {
		if name, ok := fields[p]; ok {
			if v := strings.TrimSpace(get(r, name)); v != "" {
				return v
			}
		}
	}
	return ""
}
