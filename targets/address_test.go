package targets_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddy-ark/caddy-ark/targets"
)

// Politeness holds per server, not only per name (issue 28, item 9):
// targets at five spellings of one loopback address (names, an IPv4-mapped
// IPv6 address) are five origins, and the server still gets one request
// at a time, the starts at least host_interval apart.
func TestCheckerIsPolitePerAddress(t *testing.T) {
	const gap = 100 * time.Millisecond
	o := startOrigin(t, func(http.ResponseWriter, *http.Request) { time.Sleep(20 * time.Millisecond) })
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(o.URL, "http://"))
	hosts := []string{"127.0.0.1", "localhost", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[0:0:0:0:0:ffff:7f00:1]"}
	entries := map[string]string{}
	for i, h := range hosts {
		for j := range 3 {
			entries[fmt.Sprintf("ark:12345/h%dt%d", i, j)] = fmt.Sprintf("http://%s:%s/item/%d/%d", h, port, i, j)
		}
	}
	c := fast()
	c.HostInterval = targets.Duration(gap)
	c.Interval = targets.Duration(time.Hour) // one pass: each target once
	st := startChecker(t, c, entries)
	if _, err := targets.CheckNow(context.Background(), []table.Table{mustTable(t, entries)}, st, targets.Prefix{}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if t.Failed() {
			for _, target := range entries {
				if c := checksOf(t, st, target)[0]; c != nil {
					t.Logf("%s: %s %q", target, c.State, c.Code)
				}
			}
		}
	}()
	testkit.WaitFor(t, "every target checked", func() bool { return len(o.seen("")) >= len(entries) })
	got := o.seen("")
	for i := 1; i < len(got); i++ {
		if d := got[i].at.Sub(got[i-1].at); d < gap-5*time.Millisecond {
			t.Errorf("requests %d (%s) and %d (%s) arrived %v apart, want at least %v", i-1, got[i-1].path, i, got[i].path, d, gap)
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.most != 1 {
		t.Errorf("the server had %d requests at once, want 1", o.most)
	}
}
