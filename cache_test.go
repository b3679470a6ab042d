package ark

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/resolve"
)

// A cache may be closed while requests use it (Caddy's Cleanup of an old
// config, or the cleanup of a resolver swapped out by watch): get and set
// must neither panic nor race with close, and close may come twice.
func TestCacheClosesWhileInUse(t *testing.T) {
	for range 20 {
		rc, err := newResolutionCache(1000)
		if err != nil {
			t.Fatal(err)
		}
		rc.Set("ark:12345/kept", &resolve.Resolution{Status: 302})
		rc.Set("ark:12345/kept", &resolve.Resolution{Status: 302}) // the second offer is the one cached
		rc.c.Wait()
		if _, ok := rc.Get("ark:12345/kept"); !ok {
			t.Fatal("a resolution set before close is not cached")
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					core := fmt.Sprintf("ark:12345/g%dc%d", g, i%64)
					rc.Set(core, &resolve.Resolution{Status: 302})
					rc.Get(core)
				}
			})
		}
		time.Sleep(time.Millisecond)
		rc.Close()
		rc.Close()
		if _, ok := rc.Get("ark:12345/kept"); ok {
			t.Error("a closed cache answers get")
		}
		close(stop)
		wg.Wait()
	}
}

// A core offered once is not cached: under a stream of spellings that never
// come back, ristretto's admission work costs more than resolving again. A
// core offered twice is.
func TestCacheAdmitsCoresOnTheirSecondOffer(t *testing.T) {
	rc, err := newResolutionCache(1000)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	rc.Set("ark:12345/once", &resolve.Resolution{Status: 302})
	rc.Set("ark:12345/twice", &resolve.Resolution{Status: 302})
	rc.Set("ark:12345/twice", &resolve.Resolution{Status: 302})
	rc.c.Wait()
	if _, ok := rc.Get("ark:12345/once"); ok {
		t.Error("a core offered once was cached")
	}
	if _, ok := rc.Get("ark:12345/twice"); !ok {
		t.Error("a core offered twice was not cached")
	}
}
