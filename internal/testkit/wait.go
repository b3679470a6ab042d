package testkit

import (
	"testing"
	"time"
)

// WaitFor polls cond until it holds, failing the test with what after a
// generous deadline (a minute, for a loaded machine): the tests wait for
// conditions, never for a time.
func WaitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
