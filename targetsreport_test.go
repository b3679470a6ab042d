package ark

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/targets"
)

// reportLines reads an NDJSON report by identifier, checking that each
// line has every field, times in RFC 3339.
func reportLines(t *testing.T, body string) map[string]targets.Line {
	t.Helper()
	out := map[string]targets.Line{}
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		var raw map[string]any
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			t.Fatalf("not NDJSON: %q: %v", sc.Text(), err)
		}
		for _, field := range []string{"id", "target", "state", "code", "failures", "checked", "since"} {
			if _, ok := raw[field]; !ok {
				t.Errorf("line %s has no %s", sc.Text(), field)
			}
		}
		for _, field := range []string{"checked", "since"} {
			if s, ok := raw[field].(string); ok {
				if _, err := time.Parse(time.RFC3339, s); err != nil {
					t.Errorf("%s %q is not RFC 3339", field, s)
				}
			}
		}
		var l targets.Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		out[l.ID] = l
	}
	return out
}

// The report of the targets through the API (NDJSON, chosen by status,
// prefix and since, as the key may read), on-demand checks of a shoulder
// (a write scope), caddy ark targets (NDJSON and CSV), and ?info in its
// three formats, on a site checking its targets every hour: only the
// on-demand check makes them checked within the test.
func TestTargetsReport(t *testing.T) {
	o := startTargetOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/ok") {
			http.NotFound(w, r)
		}
	})
	s := startAPISite(t, `targets_check {
			interval 1h
			host_interval 5ms
			failures 1
			allow_private
		}`)
	tc := checksIn(t, s.db)
	for key, target := range map[string]string{
		"ark:12345/x5ok": o.URL + "/ok", "ark:12345/x5dead": o.URL + "/dead", "ark:12345/x6dead": o.URL + "/dead6",
	} {
		if got := s.call(http.MethodPut, "/id/"+key, "editor", `{"target": "`+target+`"}`); got.status != http.StatusCreated {
			t.Fatalf("PUT %s: %d %s", key, got.status, got.body)
		}
	}
	// Before any check: every identifier with a target, unchecked.
	testkit.WaitFor(t, "the new bindings' targets", func() bool {
		cs, _ := tc.LookupTargetChecks(t.Context(), []string{o.URL + "/ok", o.URL + "/dead", o.URL + "/dead6"})
		return cs[0] != nil && cs[1] != nil && cs[2] != nil
	})
	got := s.call(http.MethodGet, "/targets", "editor", "")
	lines := reportLines(t, got.body)
	if got.status != http.StatusOK || got.header.Get("Content-Type") != "application/x-ndjson" || len(lines) != 4 {
		t.Fatalf("GET targets: %d %s %q", got.status, got.header.Get("Content-Type"), got.body)
	}
	if l := lines["ark:12345/t1"]; l.State != store.TargetUnchecked || l.Target != "https://table.example.org/t1" || l.Checked != nil {
		t.Errorf("the table's identifier before any check: %+v", l)
	}

	if got := s.call(http.MethodPost, "/targets/check?prefix=ark:12345/x5", "reader", ""); got.status != http.StatusForbidden {
		t.Errorf("a read-only key asked for a check: %d %s", got.status, got.body)
	}
	if got := s.call(http.MethodPost, "/targets/check", "x5", ""); got.status != http.StatusForbidden {
		t.Errorf("a key for x5 asked to check everything: %d %s", got.status, got.body)
	}
	got = s.call(http.MethodPost, "/targets/check?prefix=ark:/12345/x5", "x5", "")
	if got.status != http.StatusAccepted || !strings.Contains(got.body, `"identifiers": 2`) {
		t.Fatalf("POST targets/check?prefix=ark:/12345/x5: %d %s", got.status, got.body)
	}
	start := time.Now().UTC().Add(-time.Second).Truncate(time.Second)
	waitCheck(t, tc, o.URL+"/ok", store.TargetOK)
	dead := waitCheck(t, tc, o.URL+"/dead", store.TargetBroken)
	if c, _ := tc.LookupTargetChecks(t.Context(), []string{o.URL + "/dead6"}); c[0].State != store.TargetUnchecked {
		t.Errorf("a target outside the prefix was checked: %+v", c[0])
	}

	for query, want := range map[string][]string{
		"?status=broken":                       {"ark:12345/x5dead"},
		"?status=ok":                           {"ark:12345/x5ok"},
		"?status=unchecked":                    {"ark:12345/t1", "ark:12345/x6dead"},
		"?prefix=ark:12345/x6":                 {"ark:12345/x6dead"},
		"?since=" + start.Format(time.RFC3339): {"ark:12345/x5ok", "ark:12345/x5dead"},
		"?since=" + url.QueryEscape(time.Now().Add(time.Hour).Format(time.RFC3339)): {},
	} {
		got := s.call(http.MethodGet, "/targets"+query, "editor", "")
		lines := reportLines(t, got.body)
		if got.status != http.StatusOK || len(lines) != len(want) {
			t.Errorf("GET targets%s: %d %q, want %v", query, got.status, got.body, want)
			continue
		}
		for _, id := range want {
			if _, ok := lines[id]; !ok {
				t.Errorf("GET targets%s has no %s: %q", query, id, got.body)
			}
		}
	}
	l := reportLines(t, s.call(http.MethodGet, "/targets?status=broken", "editor", "").body)["ark:12345/x5dead"]
	if l.Code != "404" || l.Failures != 1 || l.Checked == nil || !l.Checked.Equal(dead.Checked) || l.Since == nil || l.Target != o.URL+"/dead" {
		t.Errorf("a broken line: %+v", l)
	}
	if got := s.call(http.MethodGet, "/targets", "x5", ""); len(reportLines(t, got.body)) != 2 {
		t.Errorf("a key for x5 sees %q, want the two identifiers under x5", got.body)
	}
	for query, want := range map[string]string{
		"?status=rotten": "status rotten: want one of unchecked, ok",
		"?since=today":   "since today: want an RFC 3339 time",
		"?prefix=x5":     "prefix",
		"?state=broken":  "unknown parameter state",
	} {
		if got := s.call(http.MethodGet, "/targets"+query, "editor", ""); got.status != http.StatusBadRequest || !strings.Contains(got.body, want) {
			t.Errorf("GET targets%s: %d %s, want 400 %q", query, got.status, got.body, want)
		}
	}

	// ?info in ANVL, JSON and HTML.
	anvl := s.get("/ark:12345/x5dead?info")
	for _, want := range []string{"target-state: broken\n", "target-code: 404\n", "target-failures: 1\n", "target-checked: " + dead.Checked.UTC().Format(time.RFC3339) + "\n"} {
		if !strings.Contains(anvl.body, want) {
			t.Errorf("?info has no %q:\n%s", want, anvl.body)
		}
	}
	var rec struct {
		TargetCheck struct {
			State, Code string
			Since       time.Time
		} `json:"target_check"`
	}
	js := s.do(http.MethodGet, "/ark:12345/x5dead?info", http.Header{"Accept": {"application/json"}})
	if err := json.Unmarshal([]byte(js.body), &rec); err != nil || rec.TargetCheck.State != "broken" || rec.TargetCheck.Code != "404" || !rec.TargetCheck.Since.Equal(dead.Since) {
		t.Errorf("?info as JSON: %v %s", err, js.body)
	}
	html := s.do(http.MethodGet, "/ark:12345/x5dead?info", http.Header{"Accept": {"text/html"}})
	if !strings.Contains(html.body, "target-state") || !strings.Contains(html.body, "broken") {
		t.Errorf("?info as HTML has no target state:\n%s", html.body)
	}
	if got := s.get("/ark:12345/x6dead?info"); !strings.Contains(got.body, "target-state: unchecked\n") {
		t.Errorf("?info of an unchecked target:\n%s", got.body)
	}

	// caddy ark targets.
	api := s.base + "/api/ark"
	t.Setenv("ARK_API_KEY", "editor-secret")
	out, errOut, status := runCaddy(t, "", "ark", "targets", "--api", api, "--status", "broken")
	if lines := reportLines(t, out); status != 0 || len(lines) != 1 || lines["ark:12345/x5dead"].Code != "404" {
		t.Errorf("caddy ark targets --status broken: %d %q %q", status, out, errOut)
	}
	out, errOut, status = runCaddy(t, "", "ark", "targets", "--api", api, "--prefix", "ark:12345/x5", "--csv")
	want := "id,target,state,code,failures,checked,since,final\n"
	if status != 0 || !strings.HasPrefix(out, want) || !strings.Contains(out, "ark:12345/x5dead,"+o.URL+"/dead,broken,404,1,"+dead.Checked.UTC().Format(time.RFC3339)+",") || strings.Count(out, "\n") != 3 {
		t.Errorf("caddy ark targets --csv: %d %q %q", status, out, errOut)
	}
	out, errOut, status = runCaddy(t, "", "ark", "targets", "--api", api, "--check", "--prefix", "ark:12345/x6")
	if status != 0 || out != "1 identifiers: their targets are checked next\n" {
		t.Errorf("caddy ark targets --check: %d %q %q", status, out, errOut)
	}
	waitCheck(t, tc, o.URL+"/dead6", store.TargetBroken)
	_, errOut, status = runCaddy(t, "", "ark", "targets", "--api", api, "--status", "gone")
	if status != 1 || !strings.Contains(errOut, "400 Bad Request: status gone") {
		t.Errorf("caddy ark targets --status gone: %d %q", status, errOut)
	}
}
