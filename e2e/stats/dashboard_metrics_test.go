package stats

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// The Grafana dashboard of examples/.
const dashboardFile = "examples/grafana/caddy-ark-dashboard.json"

// Every series the Grafana dashboard queries exists in a live /metrics:
// a real Caddy with a PostgreSQL store, target checks and the API is
// driven to produce each (a resolution, a not-found, a write through the
// API, a target check), then scraped; every metric name in the
// dashboard's PromQL must be in the scrape, and every exact label matcher
// (outcome="not_found") must match a series of that metric.
func TestDashboardQueriesExistingSeries(t *testing.T) {
	queries := dashboardQueries(t)
	if len(queries) == 0 {
		t.Fatalf("%s: no PromQL expression found", dashboardFile)
	}

	dsn := testkit.SharedPostgres(t).CreateDB(t)
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "/objects/t1.html"}})
	ops := caddytest.NewOpsSite(t)
	body := strings.Replace(caddytest.APISiteBody("BOLT", tablePath, `minter ark:12345/b3 .sdddd
		targets_check {
			interval 1s
		}`), "store bolt BOLT", "store postgres "+dsn, 1)
	if err := ops.Load(body); err != nil {
		t.Fatal(err)
	}
	s := &caddytest.APISite{Site: ops.Site, Table: tablePath}
	const editorWrites = `caddy_ark_api_writes_total{writer="editor"}`
	before := ops.Metrics()[editorWrites] // the process's: other tests write as editor too
	if got := s.Call("PUT", "/id/ark:12345/b3w1", "editor", `{"target": "https://repo.example.org/w1"}`); got.Status != http.StatusCreated {
		t.Fatalf("bind: %d %s", got.Status, got.Body)
	}
	for _, path := range []string{"/ark:12345/t1", "/ark:12345/t1", "/ark:12345/b3w1", "/ark:12345/nothing"} {
		s.Get(path)
	}
	var samples map[string]float64
	testkit.WaitFor(t, "the target checker's first pass", func() bool {
		samples = ops.Metrics()
		return hasMetric(samples, "caddy_ark_targets")
	})

	// The write is counted for the key that made it.
	if got := samples[editorWrites] - before; got != 1 {
		t.Errorf("%s grew by %v with one PUT, not 1", editorWrites, got)
	}

	for _, q := range queries {
		names, matchers := promQLSelectors(q.expr)
		if len(names) == 0 {
			t.Errorf("%s: %s: no metric name found in %q", dashboardFile, q.where, q.expr)
		}
		for _, name := range names {
			if !hasMetric(samples, name) {
				t.Errorf("%s: %s: %s is not in /metrics", dashboardFile, q.where, name)
			}
		}
		for _, m := range matchers {
			if !hasMetric(samples, m) {
				t.Errorf("%s: %s: no series %s in /metrics", dashboardFile, q.where, m)
			}
		}
	}
	if t.Failed() {
		var names []string
		for series := range samples {
			if strings.HasPrefix(series, "caddy_ark_") {
				names = append(names, series)
			}
		}
		sort.Strings(names)
		t.Logf("the caddy_ark_ series of /metrics:\n%s", strings.Join(names, "\n"))
	}
}

// dashboardQuery is one PromQL expression of the dashboard and where it is.
type dashboardQuery struct {
	where string
	expr  string
}

// labelValuesQuery is the form of a Grafana query variable over a label.
var labelValuesQuery = regexp.MustCompile(`^label_values\(([a-zA-Z_:][a-zA-Z0-9_:]*),\s*[a-zA-Z_][a-zA-Z0-9_]*\)$`)

// dashboardQueries returns the PromQL expressions of the dashboard: the
// panels' targets and the metric of each label_values variable.
func dashboardQueries(t *testing.T) []dashboardQuery {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(caddytest.ModuleRoot(t), dashboardFile))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				RefID string `json:"refId"`
				Expr  string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name       string `json:"name"`
				Type       string `json:"type"`
				Definition string `json:"definition"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	var out []dashboardQuery
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("%s: panel %q queries nothing", dashboardFile, p.Title)
		}
		for _, tg := range p.Targets {
			out = append(out, dashboardQuery{where: fmt.Sprintf("panel %q, query %s", p.Title, tg.RefID), expr: tg.Expr})
		}
	}
	for _, v := range dash.Templating.List {
		if v.Type != "query" {
			continue
		}
		m := labelValuesQuery.FindStringSubmatch(v.Definition)
		if m == nil {
			t.Errorf("%s: variable %s: %q is not label_values(<metric>, <label>)", dashboardFile, v.Name, v.Definition)
			continue
		}
		out = append(out, dashboardQuery{where: "variable " + v.Name, expr: m[1]})
	}
	return out
}

// The parts of PromQL that promQLSelectors reads. The Prometheus parser
// (github.com/prometheus/prometheus/promql/parser) would bring in much of
// Prometheus as a dependency for a test; the dashboard's expressions use a
// small part of the language, which these read strictly: anything that is
// not a string, a label set, a range, a grouping clause, a number, a
// keyword or a function call is taken as a metric name, so a misspelt
// metric is a name the scrape does not have.
var (
	promString    = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'`)
	promLabelSet  = regexp.MustCompile(`\{[^{}]*\}`)
	promMatcher   = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*("(?:[^"\\]|\\.)*")`) // =, not =~, != or !~
	promRange     = regexp.MustCompile(`\[[^\]]*\]`)
	promGrouping  = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promToken     = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*(?:\s*\()?|[0-9][0-9a-zA-Z.]*`)
	promKeywords  = map[string]bool{"and": true, "or": true, "unless": true, "bool": true, "offset": true}
	promSelectors = regexp.MustCompile(`([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{[^{}]*\})?`)
)

// promQLSelectors returns the metric names that expr selects and, for each
// exact label matcher of a selector, the series it asks for in the form
// of a /metrics line's name (`name{label="value"}`).
func promQLSelectors(expr string) (names, matchers []string) {
	for _, m := range promSelectors.FindAllStringSubmatch(promRange.ReplaceAllString(expr, ""), -1) {
		for _, lm := range promMatcher.FindAllStringSubmatch(m[2], -1) {
			matchers = append(matchers, m[1]+"{"+lm[1]+"="+lm[2]+"}")
		}
	}
	bare := promString.ReplaceAllString(expr, `""`)
	bare = promLabelSet.ReplaceAllString(bare, " ")
	bare = promRange.ReplaceAllString(bare, " ")
	bare = promGrouping.ReplaceAllString(bare, " ")
	seen := map[string]bool{}
	for _, tok := range promToken.FindAllString(bare, -1) {
		switch {
		case tok[0] >= '0' && tok[0] <= '9', strings.HasSuffix(tok, "("), promKeywords[tok]:
			continue
		}
		if !seen[tok] {
			seen[tok] = true
			names = append(names, tok)
		}
	}
	return names, matchers
}

// hasMetric reports whether samples hold a series of metric, given as a
// name or as `name{label="value"}` (one label, which the series must
// have among its labels).
func hasMetric(samples map[string]float64, metric string) bool {
	name, label, _ := strings.Cut(strings.TrimSuffix(metric, "}"), "{")
	for series := range samples {
		sname, labels, _ := strings.Cut(strings.TrimSuffix(series, "}"), "{")
		if sname != name {
			continue
		}
		if label == "" {
			return true
		}
		for _, l := range strings.Split(labels, ",") {
			if l == label {
				return true
			}
		}
	}
	return false
}
