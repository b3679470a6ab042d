package ark

import (
	"fmt"
	"sync"
	"testing"
	"time"
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
		rc.set("ark:12345/kept", &resolution{status: 302})
		rc.c.Wait()
		if _, ok := rc.get("ark:12345/kept"); !ok {
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
					rc.set(core, &resolution{status: 302})
					rc.get(core)
				}
			})
		}
		time.Sleep(time.Millisecond)
		rc.close()
		rc.close()
		if _, ok := rc.get("ark:12345/kept"); ok {
			t.Error("a closed cache answers get")
		}
		close(stop)
		wg.Wait()
	}
}
