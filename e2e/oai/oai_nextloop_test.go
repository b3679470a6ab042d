package oai

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// TestOAIHarvesterNextLoop lists eight records, three a page, with
// HTTP::OAI's harvester (testdata/nextloop.pl) three ways. The onRecord
// callback and a loop that follows the resumption tokens by hand see all
// eight, over three pages: the provider's tokens are read as the protocol
// means them. The usual loop of HTTP::OAI's documentation,
// `while ($rec = $r->next)`, sees the last page's two only: HTTP::OAI 4
// (Harvester::_list) asks every page before it returns and returns the
// last page's response, whose items are that page's. docs/oai-pmh.md says
// so; should a later HTTP::OAI see all eight, this test says to change it.
func TestOAIHarvesterNextLoop(t *testing.T) {
	needHarvester(t)
	var entries []table.Entry
	for i := range 8 {
		entries = append(entries, table.Entry{ID: "ark:12345/x5n" + strconv.Itoa(i), Target: "https://repo.example.org/" + strconv.Itoa(i)})
	}
	tablePath := testkit.WriteTable(t, entries)
	s := caddytest.StartSite(t, "ark {\n\t\tnaan 12345\n\t\ttable "+tablePath+"\n\t\t"+oaiBlock+"\n\t}")
	testkit.NextSecond()
	for _, verb := range []string{"ListIdentifiers", "ListRecords"} {
		out, err := exec.Command("perl", filepath.Join(caddytest.ModuleRoot(t), "e2e", "oai", "testdata", "nextloop.pl"), s.Base+"/oai", verb, "oai_dc").CombinedOutput()
		if err != nil {
			t.Fatalf("nextloop.pl %s: %v\n%s", verb, err, out)
		}
		got := map[string]string{}
		for line := range strings.Lines(string(out)) {
			name, value, _ := strings.Cut(strings.TrimSpace(line), "\t")
			got[name] = value
		}
		if got["onRecord"] != "8" || got["manual"] != "8" || got["pages"] != "3" || got["lastpage"] != "2" {
			t.Errorf("%s: onRecord saw %s, the loop by hand %s over %s pages, the last of %s; want 8, 8, 3 and 2", verb, got["onRecord"], got["manual"], got["pages"], got["lastpage"])
		}
		if got["next"] != "2" {
			t.Errorf("%s: HTTP::OAI %s's usual ->next loop saw %s records of 8: docs/oai-pmh.md says it sees the last page's (2) only; change it", verb, got["version"], got["next"])
		}
	}
}
