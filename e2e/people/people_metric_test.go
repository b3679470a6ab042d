package people

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// caddy_ark_api_writes_total counts a person's writes as person:<name>,
// and its description, which Prometheus and Grafana show, says so.
func TestWritesMetricCountsPeople(t *testing.T) {
	ops := caddytest.NewOpsSite(t)
	s := &peopleSite{
		Site:  ops.Site,
		db:    t.TempDir() + "/ark.db",
		table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}}),
	}
	s.reload(basicAuth(t, "/api/ark/*", map[string]string{"alice": "alice-pw"}), `people basic_auth
				person alice write:ark:12345/x5`)
	series := `caddy_ark_api_writes_total{writer="person:alice"}`
	before := ops.Metrics()[series]
	expect(t, "alice binds", s.call("PUT", "/id/ark:12345/x5m1", `{"target": "https://repo.example.org/m1"}`, "basic", "alice:alice-pw"), http.StatusCreated, "")
	if got := ops.Metrics()[series] - before; got != 1 {
		t.Errorf("%s grew by %v, not 1", series, got)
	}

	resp, err := caddytest.AdminClient.Get(ops.Admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	text, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var help string
	for line := range strings.Lines(string(text)) {
		if strings.HasPrefix(line, "# HELP caddy_ark_api_writes_total ") {
			help = line
		}
	}
	if !strings.Contains(help, "person:<name>") || strings.Contains(help, "the name of the API key.") {
		t.Errorf("the description does not say that people are counted: %q", help)
	}
}
