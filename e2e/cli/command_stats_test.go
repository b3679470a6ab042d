package cli

import (
	"encoding/csv"
	"encoding/json"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/stats"
	"github.com/caddy-ark/caddy-ark/table"
)

// statsCLIBody is the site of the caddy ark stats tests: APISite's keys,
// and all (read:*) and admin (admin only), whose secrets are their names
// followed by "-secret"; a minter's shoulder; stats when withStats.
func statsCLIBody(s *caddytest.APISite, withStats bool) string {
	more := "minter ark:12345/q9 .sdddd"
	if withStats {
		more += "\n\t\tstats {\n\t\t\tflush_interval 1m\n\t\t}"
	}
	keys := "\n\t\t\tkey all " + caddytest.KeyHash("all-secret") + " read:*\n\t\t\tkey admin " + caddytest.KeyHash("admin-secret") + " admin"
	return strings.Replace(caddytest.APISiteBody(s.DB, s.Table, more), "api /api/ark {", "api /api/ark {"+keys, 1)
}

// caddy ark stats against a real Caddy that counted real requests, some
// written to its bolt store by a reload and some not yet: the text report,
// the API's JSON as is, CSV, a period, a scoped key, and the refusals.
func TestBinaryStats(t *testing.T) {
	s := &caddytest.APISite{DB: filepath.Join(t.TempDir(), "ark.db"), Table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})}
	s.Site = caddytest.StartSite(t, statsCLIBody(s, true))
	if got := s.Call("PUT", "/id/ark:12345/x5b1", "editor", `{"target": "https://repo.example.org/b1"}`); got.Status != 201 {
		t.Fatalf("bind: %d %s", got.Status, got.Body)
	}
	caddytest.ResolveAll(s, t, caddytest.StatsRequests)
	if err := s.Load(statsCLIBody(s, true)); err != nil { // writes the counts to the store
		t.Fatal(err)
	}
	caddytest.ResolveAll(s, t, map[string]int{"/ark:12345/t1": 302, "/ark:12345/x5nothere": 404, "/ark:12,345/x": 400})
	base := s.Base + "/api/ark"
	today := time.Now().UTC().Format(time.DateOnly)

	t.Setenv("ARK_API_KEY", "all-secret")
	out, errOut, status := caddytest.RunCaddy(t, "", "ark", "stats", "--api", base, "--days", "1")
	want := `Requests from ` + today + ` to ` + today + `: 11, of which 5 found nothing
3 of them counted by this server and not written to the store yet

By day
day         total  redirect  not_found  invalid  foreign
` + today + `     11         4          5        1        1

By shoulder
shoulder              total  redirect  not_found  invalid  foreign
(none of the site's)      3         0          1        1        1
ark:12345                 3         0          3        0        0
ark:12345/t1              3         3          0        0        0
ark:12345/q9              1         0          1        0        0
ark:12345/x5              1         1          0        0        0

Most requested
3  ark:12345/t1
1  ark:12345/x5b1

Requested, but found nothing
2  ark:12345/x5nothere
1  ark:12345/q9nothere
1  ark:12345/x5nothere2
`
	if status != 0 || out != want {
		t.Errorf("stats --days 1: %d %q\n%s\nwant\n%s", status, errOut, out, want)
	}

	// --json is the API's answer as it is.
	out, errOut, status = caddytest.RunCaddy(t, "", "ark", "stats", "--api", base, "--days", "1", "--json")
	if api := s.Call("GET", "/stats?days=1", "all", ""); status != 0 || out != api.Body {
		t.Errorf("stats --json: %d %q\n%s\nwant the API's\n%s", status, errOut, out, api.Body)
	}
	var r stats.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Total != 11 || r.Unwritten != 3 || len(r.Days) != 1 {
		t.Errorf("stats --json: %v, total %d, unwritten %d, %d days; want 11, 3 and 1", err, r.Total, r.Unwritten, len(r.Days))
	}

	// --csv: the same counts, by day and by shoulder; 30 days by default.
	out, errOut, status = caddytest.RunCaddy(t, "", "ark", "stats", "--api", base, "--csv")
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if status != 0 || err != nil || len(rows) != 1+30+5 {
		t.Fatalf("stats --csv: %d %v %q\n%s", status, err, errOut, out)
	}
	wantRows := map[int]string{
		0:  "by,value,total,redirect,not_found,invalid,foreign",
		1:  "day," + time.Now().UTC().AddDate(0, 0, -29).Format(time.DateOnly) + ",0,0,0,0,0",
		30: "day," + today + ",11,4,5,1,1",
		31: "shoulder,,3,0,1,1,1",
		33: "shoulder,ark:12345/t1,3,3,0,0,0",
		35: "shoulder,ark:12345/x5,1,1,0,0,0",
	}
	for i, w := range wantRows {
		if got := strings.Join(rows[i], ","); got != w {
			t.Errorf("stats --csv, row %d: %q, want %q", i, got, w)
		}
	}

	// A period without requests; a key that sees one shoulder.
	out, _, status = caddytest.RunCaddy(t, "", "ark", "stats", "--api", base, "--from", "2020-01-01", "--to", "2020-01-02")
	want = "Requests from 2020-01-01 to 2020-01-02: 0, of which 0 found nothing\n\nBy day\nday                       total\n2020-01-01 to 2020-01-02      0\n\nBy shoulder\n(none)\n\nMost requested\n(none)\n\nRequested, but found nothing\n(none)\n"
	if status != 0 || out != want {
		t.Errorf("stats --from --to: %d\n%s\nwant\n%s", status, out, want)
	}
	t.Setenv("ARK_API_KEY", "x5-secret")
	out, _, status = caddytest.RunCaddy(t, "", "ark", "stats", "--api", base, "--days", "1")
	if status != 0 || !strings.HasPrefix(out, "Requests from "+today+" to "+today+": 1, of which 0 found nothing\n") ||
		!strings.Contains(out, "\nBy shoulder\nshoulder      total  redirect\nark:12345/x5      1         1\n\n") ||
		!strings.HasSuffix(out, "\nRequested, but found nothing\n2  ark:12345/x5nothere\n1  ark:12345/x5nothere2\n") {
		t.Errorf("stats as x5: %d\n%s", status, out)
	}

	// Refusals: one line on stderr naming the problem, exit status 1.
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unreachable := "http://127.0.0.1:" + strconv.Itoa(closed.Addr().(*net.TCPAddr).Port) + "/api/ark"
	closed.Close()
	for _, bad := range []struct {
		key  string
		args []string
		says string
	}{
		{"all-secret", []string{"--days", "0"}, `400 Bad Request: days "0": a number of days from 1 to 800`},
		{"all-secret", []string{"--days", "3", "--from", "2025-01-01"}, "400 Bad Request: give days, or from and to, not both"},
		{"all-secret", []string{"--from", "2025-02-01", "--to", "2025-01-01"}, "400 Bad Request: from 2025-02-01 is after to 2025-01-01"},
		{"all-secret", []string{"--json", "--csv"}, "give --json or --csv, not both"},
		{"admin-secret", nil, "403 Forbidden: key admin may read no identifiers, so no statistics"},
		{"", nil, "no key: set ARK_API_KEY"},
		{"wrong-secret", nil, "401 Unauthorized"},
	} {
		t.Setenv("ARK_API_KEY", bad.key)
		checkOneLineRefusal(t, bad.says, append([]string{"ark", "stats", "--api", base}, bad.args...)...)
	}
	t.Setenv("ARK_API_KEY", "all-secret")
	checkOneLineRefusal(t, "connection refused", "ark", "stats", "--api", unreachable)
	if err := s.Load(statsCLIBody(s, false)); err != nil {
		t.Fatal(err)
	}
	checkOneLineRefusal(t, "404 Not Found: statistics are not kept here: the ark block has no stats", "ark", "stats", "--api", base)
}

// checkOneLineRefusal runs caddy with args and expects exit status 1,
// nothing on stdout, and one line on stderr that says says.
func checkOneLineRefusal(t *testing.T, says string, args ...string) {
	t.Helper()
	out, errOut, status := caddytest.RunCaddy(t, "", args...)
	if status != 1 || out != "" || !strings.Contains(errOut, says) || strings.Count(strings.TrimSuffix(errOut, "\n"), "\n") != 0 {
		t.Errorf("caddy %v: %d %q %q; want status 1 and one line saying %q", args, status, out, errOut, says)
	}
}
