package metadata

import "strings"

// Item is a content resource of the referent: a file, a page image, a
// download, which FAIR signposting links with rel="item".
type Item struct {
	// URL is the resource's absolute URL.
	URL string
	// Type is its media type ("text/csv"); "" when not given.
	Type string
}

// ParseItems reads the item syntax: items separated by ";", each an
// absolute http(s) URL optionally followed by whitespace and a media type:
// "https://example.org/data.csv text/csv; https://example.org/scan.tif".
// Parts that do not start with an http(s) URL are left out.
func ParseItems(v string) []Item {
	var out []Item
	for _, part := range splitList(v) {
		fields := strings.Fields(part)
		if httpURL(fields[0]) == "" {
			continue
		}
		item := Item{URL: fields[0]}
		if len(fields) > 1 && strings.Count(fields[1], "/") == 1 {
			item.Type = fields[1]
		}
		out = append(out, item)
	}
	return out
}
