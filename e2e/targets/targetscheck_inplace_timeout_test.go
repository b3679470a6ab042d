package targets

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// A check of an in-place target is bounded by timeout, as one over the
// network is (issue 28, item 2): a route that answers in a minute fails
// its check with a timeout after a second, and the other in-place
// targets are checked meanwhile.
func TestTargetsCheckTimesInPlaceChecksOut(t *testing.T) {
	upstream := startTargetOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/slow") {
			select {
			case <-time.After(time.Minute):
			case <-r.Context().Done():
			}
		}
	})
	tablePath := testkit.WriteTable(t, []table.Entry{
		{ID: "ark:12345/slow", Target: "/slow/t1"},
		{ID: "ark:12345/fast1", Target: "/fast/t1"},
		{ID: "ark:12345/fast2", Target: "/fast/t2"},
	})
	db := filepath.Join(t.TempDir(), "ark.db")
	caddytest.StartSite(t, `
	ark {
		naan 12345
		table `+tablePath+`
		store bolt `+db+`
		targets_check {
			interval 1s
			host_interval 10ms
			timeout 1s
			failures 1
		}
	}
	reverse_proxy `+strings.TrimPrefix(upstream.URL, "http://"))
	tc := checksIn(t, db)
	if c := waitCheck(t, tc, "/slow/t1", store.TargetBroken); c.Code != "timeout" {
		t.Errorf("an in-place target answering in a minute: %+v, want broken by a timeout", c)
	}
	for _, target := range []string{"/fast/t1", "/fast/t2"} {
		waitCheck(t, tc, target, store.TargetOK)
	}
}
