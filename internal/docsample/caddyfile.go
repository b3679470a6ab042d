package docsample

import "strings"

// IsFullCaddyfile says whether a Caddyfile sample is a whole Caddyfile (it
// starts with the global options block or a site address) rather than
// directives to put in a site.
func IsFullCaddyfile(body string) bool {
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		first := strings.Fields(line)[0]
		return first == "{" || strings.HasPrefix(first, ":") || strings.Contains(first, ".")
	}
	return false
}
