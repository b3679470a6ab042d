package caddytest

import (
	"regexp"
	"strings"
)

// changeRows finds the rows of the changes feed: identifier and what changed.
var changeRows = regexp.MustCompile(`<td><a href="[^"]*">([^<]+)</a></td><td>((?:<span class="change">[^<]*</span> )+)</td>`)

// ChangeFeed returns the rows of a page of the console's changes feed,
// "<id>: <what>" each.
func ChangeFeed(body string) []string {
	var rows []string
	for _, m := range changeRows.FindAllStringSubmatch(body, -1) {
		what := strings.ReplaceAll(strings.ReplaceAll(m[2], `<span class="change">`, ""), "</span> ", "; ")
		rows = append(rows, m[1]+": "+strings.TrimSuffix(what, "; "))
	}
	return rows
}
