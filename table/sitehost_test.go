package table_test

import (
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/table"
)

// No target names the host the target checker gives the site itself, in
// any spelling; other hosts under .invalid, and paths, are targets.
func TestEntryStatusRefusesTheSiteInternalHost(t *testing.T) {
	for _, target := range []string{
		"http://site.internal.invalid/admin",
		"https://site.internal.invalid",
		"HTTP://SITE.INTERNAL.INVALID/x",
		"http://site.internal.invalid./x",
		"http://site.internal.invalid..:80/x",
		"http://site.internal.invalid:8080/x",
		"http://me@site.internal.invalid/x?q",
	} {
		if _, err := table.EntryStatus(target, 0); err == nil || !strings.Contains(err.Error(), "the target checker's name for the site itself") {
			t.Errorf("%s: %v, want it refused", target, err)
		}
		if _, err := table.Open(nil, []table.Entry{{ID: "ark:12345/x", Target: target}}, false); err == nil {
			t.Errorf("a table with the target %s was opened", target)
		}
	}
	for _, target := range []string{"http://other.internal.invalid/x", "http://internal.invalid/x", "/site.internal.invalid/x", "https://example.org/site.internal.invalid"} {
		if _, err := table.EntryStatus(target, 0); err != nil {
			t.Errorf("%s: %v", target, err)
		}
	}
}
