package console

import (
	"fmt"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"
)

func TestThrottleWaitsDoubleAfterFreeFailures(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	th := newThrottle()
	th.now = func() time.Time { return now }
	one := client{addr: "192.0.2.1", block: "192.0.2.0/24"}
	want := []time.Duration{0, 0, time.Second, 2 * time.Second, 4 * time.Second}
	for i, w := range want {
		th.failed(one)
		if got := th.wait(one); got != w {
			t.Errorf("after %d failures: wait %s, want %s", i+1, got, w)
		}
	}
	if got := th.wait(client{addr: "192.0.2.2", block: "192.0.2.0/24"}); got != 0 {
		t.Errorf("another client waits %s", got)
	}
	for range 20 {
		th.failed(one)
	}
	if got := th.wait(one); got != longestWait {
		t.Errorf("after many failures: wait %s, want the longest, %s", got, longestWait)
	}
	now = now.Add(longestWait)
	if got := th.wait(one); got != 0 {
		t.Errorf("once the wait has passed: %s", got)
	}
	th.succeeded(one)
	th.failed(one)
	if got := th.wait(one); got != 0 {
		t.Errorf("a success forgets the failures, yet one more failure waits %s", got)
	}
}

func TestThrottleBoundsTheClientsItCounts(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	th := newThrottle()
	th.now = func() time.Time { return now }
	// The table fills with clients of one failure each.
	for i := range maxCounts {
		th.failed(client{addr: "c" + strconv.Itoa(i)})
	}
	// Past the bound, a client with no count of its own is checked
	// freeFailures times, not more: the clients that found the table
	// full share their block's overflow count, and wait for it.
	checked := 0
	for i := range 30 {
		c := client{addr: "new-" + strconv.Itoa(i), block: "new-block"}
		if th.wait(c) == 0 {
			checked++
			th.failed(c)
		}
	}
	if checked != freeFailures {
		t.Errorf("after the table filled, %d of 30 sign-ins of new clients were checked, want %d", checked, freeFailures)
	}
	// Clients counted before still have their own count.
	if w := th.wait(client{addr: "c1"}); w != 0 {
		t.Errorf("a client counted before the table filled waits %s", w)
	}
	// Counts older than forgetAfter make room, and the overflow is
	// forgotten with them.
	now = now.Add(forgetAfter + time.Second)
	fresh := client{addr: "new-2", block: "new-block"}
	if w := th.wait(fresh); w != 0 {
		t.Fatalf("an hour later: a new client waits %s", w)
	}
	th.failed(fresh)
	if len(th.by) != 2 || th.by["new-2"] == nil || th.by["new-block"] == nil || overflowFailures(th) != 0 {
		t.Errorf("after forgetting: %d counts, overflow %d; want new-2 and its block alone", len(th.by), overflowFailures(th))
	}
}

func TestThrottleCountsBlocks(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	th := newThrottle()
	th.now = func() time.Time { return now }
	// One who holds a /48 signs in from a new /64 each time: each has
	// failed once, the block freeBlockFailures times, and all wait.
	checked := 0
	for i := range 100 {
		r := httptest.NewRequest("POST", "/", nil)
		r.RemoteAddr = fmt.Sprintf("[2001:db8:7:%x::1]:5000", i)
		if c := clientOf(r); th.wait(c) == 0 {
			checked++
			th.failed(c)
		}
	}
	if checked != freeBlockFailures {
		t.Errorf("%d of 100 sign-ins from the /64s of one /48 were checked, want %d", checked, freeBlockFailures)
	}
	r := httptest.NewRequest("POST", "/", nil)
	r.RemoteAddr = "[2001:db8:8::1]:5000"
	if w := th.wait(clientOf(r)); w != 0 {
		t.Errorf("a client of another /48 waits %s", w)
	}
}

func TestClientOfGroupsIPv6By64(t *testing.T) {
	for addr, want := range map[string]client{
		"192.0.2.7:5000":              {"192.0.2.7", "192.0.2.0/24"},
		"[2001:db8:1:2:aaaa::1]:5000": {"2001:db8:1:2::/64", "2001:db8:1::/48"},
		"[2001:db8:1:2:bbbb::9]:5000": {"2001:db8:1:2::/64", "2001:db8:1::/48"},
		"[::ffff:192.0.2.7]:5000":     {"192.0.2.7", "192.0.2.0/24"},
		"[2001:db8:1:3::1]:443":       {"2001:db8:1:3::/64", "2001:db8:1::/48"},
		"[fe80::1%eth0]:443":          {"fe80::/64", "fe80::/48"},
	} {
		r := httptest.NewRequest("POST", "/", nil)
		r.RemoteAddr = addr
		if got := clientOf(r); got != want {
			t.Errorf("%s: %s, want %s", addr, got, want)
		}
	}
}

// One who holds a whole /48 (or /24), failing from a new address each
// time as fast as the throttle lets it, keeps about a hundred counts
// alive, its block's count holding it to one failure a minute and each
// count forgotten an hour after its last failure: it cannot fill the
// table, so it never makes the clients of other blocks share the
// overflow.
func TestThrottleOneBlockCannotFillTheTable(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	th := newThrottle()
	th.now = func() time.Time { return now }
	most := 0
	for i := range 4 * 3600 { // a try a second for four hours
		c := client{addr: fmt.Sprintf("2001:db8:7:%x::/64", i), block: "2001:db8:7::/48"}
		if th.wait(c) == 0 {
			th.failed(c)
		}
		alive := 0 // the counts a full table could not forget
		for _, f := range th.by {
			if now.Sub(f.last) <= forgetAfter {
				alive++
			}
		}
		most = max(most, alive)
		now = now.Add(time.Second)
	}
	if about := freeBlockFailures + int(forgetAfter/longestWait); most > 2*about {
		t.Errorf("one block kept %d counts alive at once, want about %d", most, about)
	}
	if n := overflowFailures(th); n != 0 {
		t.Errorf("one block's failures reached the overflow: %d", n)
	}
	if w := th.wait(client{addr: "2001:db8:8::/64", block: "2001:db8:8::/48"}); w != 0 {
		t.Errorf("a client of another block waits %s", w)
	}
}

// overflowFailures returns the failures the overflow counts.
func overflowFailures(th *throttle) int {
	n := 0
	for _, f := range th.overflow {
		n += f.n
	}
	return n
}

// Once the table is full, a few wrong keys from one block slow down the
// new clients of that block, and of the few blocks sharing its overflow
// count, not every new client (issue 36, item 2); and one who holds many
// blocks gets no more tries from the overflow than its counts allow.
func TestThrottleFullTableSlowsDownOnlyTheBlocksSharingACount(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	th := newThrottle()
	th.now = func() time.Time { return now }
	for i := range maxCounts / 2 {
		th.failed(client{addr: fmt.Sprintf("10.%d.%d.1", i/256, i%256), block: fmt.Sprintf("10.%d.%d.0/24", i/256, i%256)})
	}
	attacker := client{addr: "198.51.100.1", block: "198.51.100.0/24"}
	for range freeFailures {
		th.failed(attacker)
	}
	if th.wait(attacker) == 0 {
		t.Fatal("the attacker's block is not slowed down once the table is full")
	}
	waiting := 0
	for i := range 200 {
		if th.wait(client{addr: fmt.Sprintf("172.16.%d.9", i), block: fmt.Sprintf("172.16.%d.0/24", i)}) > 0 {
			waiting++
		}
	}
	if waiting > 10 {
		t.Errorf("%d of 200 new clients of other blocks wait after a few failures of one block, want about none", waiting)
	}

	// One who holds many blocks, trying once from each at once: the
	// overflow checks at most freeFailures tries a count, not one a block.
	checked := 0
	for i := range 5000 {
		c := client{addr: fmt.Sprintf("2001:db8:%x::/64", i), block: fmt.Sprintf("2001:db8:%x::/48", i)}
		if th.wait(c) == 0 {
			checked++
			th.failed(c)
		}
	}
	if most := overflowCounts * freeFailures; checked > most {
		t.Errorf("the overflow checked %d tries from 5000 blocks, want at most %d", checked, most)
	}
}

// BenchmarkThrottleFailureOnAFullTable is a failed sign-in of a new
// client once the table is full of counts too young to forget: what a
// flood's every further failure costs.
func BenchmarkThrottleFailureOnAFullTable(b *testing.B) {
	now := time.Unix(1_700_000_000, 0)
	th := newThrottle()
	th.now = func() time.Time { return now }
	for i := range maxCounts / 2 {
		th.failed(client{addr: fmt.Sprintf("10.%d.%d.1", i/256, i%256), block: fmt.Sprintf("10.%d.%d.0/24", i/256, i%256)})
	}
	clients := make([]client, 1024)
	for i := range clients {
		clients[i] = client{addr: fmt.Sprintf("2001:db8:%x::/64", i), block: fmt.Sprintf("2001:db8:%x::/48", i)}
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		th.failed(clients[i%len(clients)])
	}
}
