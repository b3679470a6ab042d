package breaker

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestOpensAfterThresholdProbesAndCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var seen []State
		b := New(3, 50*time.Millisecond, time.Second, func(s State) { seen = append(seen, s) })
		b.Failure()
		b.Failure()
		b.Success() // resets the count
		b.Failure()
		b.Failure()
		if !b.Allow() || b.State() != Closed {
			t.Fatalf("closed circuit after 2 failures in a row: %v", b.State())
		}
		b.Failure()
		if b.Allow() || b.State() != Open {
			t.Fatalf("after 3 failures in a row: allowed, or %v", b.State())
		}
		b.Failure() // a straggler: changes nothing
		time.Sleep(60 * time.Millisecond)
		if !b.Allow() {
			t.Fatal("no probe after the cooldown")
		}
		if b.Allow() || b.State() != HalfOpen {
			t.Fatalf("a second call while the probe is under way: allowed, or %v", b.State())
		}
		b.Failure() // the probe failed
		if b.Allow() || b.State() != Open {
			t.Fatalf("after a failed probe: allowed, or %v", b.State())
		}
		time.Sleep(60 * time.Millisecond)
		if !b.Allow() {
			t.Fatal("no second probe")
		}
		b.Success()
		if !b.Allow() || !b.Allow() || b.State() != Closed {
			t.Fatalf("after a probe succeeded: %v", b.State())
		}
		want := []State{Open, HalfOpen, Open, HalfOpen, Closed}
		if len(seen) != len(want) {
			t.Fatalf("states %v, want %v", seen, want)
		}
		for i := range want {
			if seen[i] != want[i] {
				t.Fatalf("states %v, want %v", seen, want)
			}
		}
	})
}

func TestALostProbeIsReplaced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := New(1, 10*time.Millisecond, 30*time.Millisecond, nil)
		b.Failure()
		time.Sleep(15 * time.Millisecond)
		if !b.Allow() {
			t.Fatal("no probe")
		}
		// The probe's caller gave up and reported nothing.
		if b.Allow() {
			t.Fatal("a second probe at once")
		}
		time.Sleep(35 * time.Millisecond)
		if !b.Allow() {
			t.Fatal("no new probe after the lost one's time ran out")
		}
	})
}
