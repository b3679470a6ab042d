package console

import (
	"net/http/httptest"
	"strconv"
	"testing"
	"time"
)

func TestThrottleWaitsDoubleAfterFreeFailures(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	th := newThrottle()
	th.now = func() time.Time { return now }
	want := []time.Duration{0, 0, time.Second, 2 * time.Second, 4 * time.Second}
	for i, w := range want {
		th.failed("192.0.2.1")
		if got := th.wait("192.0.2.1"); got != w {
			t.Errorf("after %d failures: wait %s, want %s", i+1, got, w)
		}
	}
	if got := th.wait("192.0.2.2"); got != 0 {
		t.Errorf("another client waits %s", got)
	}
	for range 20 {
		th.failed("192.0.2.1")
	}
	if got := th.wait("192.0.2.1"); got != longestWait {
		t.Errorf("after many failures: wait %s, want the longest, %s", got, longestWait)
	}
	now = now.Add(longestWait)
	if got := th.wait("192.0.2.1"); got != 0 {
		t.Errorf("once the wait has passed: %s", got)
	}
	th.succeeded("192.0.2.1")
	th.failed("192.0.2.1")
	if got := th.wait("192.0.2.1"); got != 0 {
		t.Errorf("a success forgets the failures, yet one more failure waits %s", got)
	}
}

func TestThrottleBoundsTheClientsItCounts(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	th := newThrottle()
	th.now = func() time.Time { return now }
	for i := range maxClients {
		th.failed("c" + strconv.Itoa(i))
	}
	// Past the bound, new clients share one count.
	for range freeFailures {
		th.failed("new-1")
	}
	if len(th.by) != maxClients+1 || th.wait("") == 0 {
		t.Errorf("%d clients counted, shared wait %s: want %d and a wait", len(th.by), th.wait(""), maxClients+1)
	}
	// Counts older than forgetAfter make room.
	now = now.Add(forgetAfter + time.Second)
	th.failed("new-2")
	if len(th.by) != 1 || th.by["new-2"] == nil {
		t.Errorf("after forgetting: %d clients counted, want new-2 alone", len(th.by))
	}
}

func TestClientOfGroupsIPv6By64(t *testing.T) {
	for addr, want := range map[string]string{
		"192.0.2.7:5000":              "192.0.2.7",
		"[2001:db8:1:2:aaaa::1]:5000": "2001:db8:1:2::/64",
		"[2001:db8:1:2:bbbb::9]:5000": "2001:db8:1:2::/64",
		"[::ffff:192.0.2.7]:5000":     "192.0.2.7",
		"[2001:db8:1:3::1]:443":       "2001:db8:1:3::/64",
	} {
		r := httptest.NewRequest("POST", "/", nil)
		r.RemoteAddr = addr
		if got := clientOf(r); got != want {
			t.Errorf("%s: %s, want %s", addr, got, want)
		}
	}
}
