package targets

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
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
	s := caddytest.StartAPISite(t, `targets_check {
			interval 1h
			host_interval 5ms
			failures 1
			allow_private
		}`)
	tc := checksIn(t, s.DB)
	for key, target := range map[string]string{
		"ark:12345/x5ok": o.URL + "/ok", "ark:12345/x5dead": o.URL + "/dead", "ark:12345/x6dead": o.URL + "/dead6",
	} {
		if got := s.Call(http.MethodPut, "/id/"+key, "editor", `{"target": "`+target+`"}`); got.Status != http.StatusCreated {
			t.Fatalf("PUT %s: %d %s", key, got.Status, got.Body)
		}
	}
	// Before any check: every identifier with a target, unchecked.
	testkit.WaitFor(t, "the new bindings' targets", func() bool {
		cs, _ := tc.LookupTargetChecks(t.Context(), []string{o.URL + "/ok", o.URL + "/dead", o.URL + "/dead6"})
		return cs[0] != nil && cs[1] != nil && cs[2] != nil
	})
	got := s.Call(http.MethodGet, "/targets", "editor", "")
	lines := reportLines(t, got.Body)
	if got.Status != http.StatusOK || got.Header.Get("Content-Type") != "application/x-ndjson" || len(lines) != 4 {
		t.Fatalf("GET targets: %d %s %q", got.Status, got.Header.Get("Content-Type"), got.Body)
	}
	if l := lines["ark:12345/t1"]; l.State != store.TargetUnchecked || l.Target != "https://table.example.org/t1" || l.Checked != nil {
		t.Errorf("the table's identifier before any check: %+v", l)
	}

	if got := s.Call(http.MethodPost, "/targets/check?prefix=ark:12345/x5", "reader", ""); got.Status != http.StatusForbidden {
		t.Errorf("a read-only key asked for a check: %d %s", got.Status, got.Body)
	}
	if got := s.Call(http.MethodPost, "/targets/check", "x5", ""); got.Status != http.StatusForbidden {
		t.Errorf("a key for x5 asked to check everything: %d %s", got.Status, got.Body)
	}
	got = s.Call(http.MethodPost, "/targets/check?prefix=ark:/12345/x5", "x5", "")
	if got.Status != http.StatusAccepted || !strings.Contains(got.Body, `"identifiers": 2`) {
		t.Fatalf("POST targets/check?prefix=ark:/12345/x5: %d %s", got.Status, got.Body)
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
		got := s.Call(http.MethodGet, "/targets"+query, "editor", "")
		lines := reportLines(t, got.Body)
		if got.Status != http.StatusOK || len(lines) != len(want) {
			t.Errorf("GET targets%s: %d %q, want %v", query, got.Status, got.Body, want)
			continue
		}
		for _, id := range want {
			if _, ok := lines[id]; !ok {
				t.Errorf("GET targets%s has no %s: %q", query, id, got.Body)
			}
		}
	}
	l := reportLines(t, s.Call(http.MethodGet, "/targets?status=broken", "editor", "").Body)["ark:12345/x5dead"]
	if l.Code != "404" || l.Failures != 1 || l.Checked == nil || !l.Checked.Equal(dead.Checked) || l.Since == nil || l.Target != o.URL+"/dead" {
		t.Errorf("a broken line: %+v", l)
	}
	if got := s.Call(http.MethodGet, "/targets", "x5", ""); len(reportLines(t, got.Body)) != 2 {
		t.Errorf("a key for x5 sees %q, want the two identifiers under x5", got.Body)
	}
	for query, want := range map[string]string{
		"?status=rotten": "status rotten: want one of unchecked, ok",
		"?since=today":   "since today: want an RFC 3339 time",
		"?prefix=x5":     "prefix",
		"?state=broken":  "unknown parameter state",
	} {
		if got := s.Call(http.MethodGet, "/targets"+query, "editor", ""); got.Status != http.StatusBadRequest || !strings.Contains(got.Body, want) {
			t.Errorf("GET targets%s: %d %s, want 400 %q", query, got.Status, got.Body, want)
		}
	}

	// ?info in ANVL, JSON and HTML.
	anvl := s.Get("/ark:12345/x5dead?info")
	for _, want := range []string{"target-state: broken\n", "target-code: 404\n", "target-failures: 1\n", "target-checked: " + dead.Checked.UTC().Format(time.RFC3339) + "\n"} {
		if !strings.Contains(anvl.Body, want) {
			t.Errorf("?info has no %q:\n%s", want, anvl.Body)
		}
	}
	var rec struct {
		TargetCheck struct {
			State, Code string
			Since       time.Time
		} `json:"target_check"`
	}
	js := s.Do(http.MethodGet, "/ark:12345/x5dead?info", http.Header{"Accept": {"application/json"}})
	if err := json.Unmarshal([]byte(js.Body), &rec); err != nil || rec.TargetCheck.State != "broken" || rec.TargetCheck.Code != "404" || !rec.TargetCheck.Since.Equal(dead.Since) {
		t.Errorf("?info as JSON: %v %s", err, js.Body)
	}
	html := s.Do(http.MethodGet, "/ark:12345/x5dead?info", http.Header{"Accept": {"text/html"}})
	if !strings.Contains(html.Body, "target-state") || !strings.Contains(html.Body, "broken") {
		t.Errorf("?info as HTML has no target state:\n%s", html.Body)
	}
	if got := s.Get("/ark:12345/x6dead?info"); !strings.Contains(got.Body, "target-state: unchecked\n") {
		t.Errorf("?info of an unchecked target:\n%s", got.Body)
	}

	// caddy ark targets.
	api := s.Base + "/api/ark"
	t.Setenv("ARK_API_KEY", "editor-secret")
	out, errOut, status := caddytest.RunCaddy(t, "", "ark", "targets", "--api", api, "--status", "broken")
	if lines := reportLines(t, out); status != 0 || len(lines) != 1 || lines["ark:12345/x5dead"].Code != "404" {
		t.Errorf("caddy ark targets --status broken: %d %q %q", status, out, errOut)
	}
	out, errOut, status = caddytest.RunCaddy(t, "", "ark", "targets", "--api", api, "--prefix", "ark:12345/x5", "--csv")
	want := "id,target,state,code,failures,checked,since,final\n"
	if status != 0 || !strings.HasPrefix(out, want) || !strings.Contains(out, "ark:12345/x5dead,"+o.URL+"/dead,broken,404,1,"+dead.Checked.UTC().Format(time.RFC3339)+",") || strings.Count(out, "\n") != 3 {
		t.Errorf("caddy ark targets --csv: %d %q %q", status, out, errOut)
	}
	out, errOut, status = caddytest.RunCaddy(t, "", "ark", "targets", "--api", api, "--check", "--prefix", "ark:12345/x6")
	if status != 0 || out != "1 identifiers: their targets are checked next\n" {
		t.Errorf("caddy ark targets --check: %d %q %q", status, out, errOut)
	}
	waitCheck(t, tc, o.URL+"/dead6", store.TargetBroken)
	_, errOut, status = caddytest.RunCaddy(t, "", "ark", "targets", "--api", api, "--status", "gone")
	if status != 1 || !strings.Contains(errOut, "400 Bad Request: status gone") {
		t.Errorf("caddy ark targets --status gone: %d %q", status, errOut)
	}
}
