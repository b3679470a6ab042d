package targets_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// handlerSite is a site of table entries whose in-place targets h
// answers.
type handlerSite struct {
	t table.Table
	h http.HandlerFunc
}

func (s handlerSite) Table() table.Table                               { return s.t }
func (s handlerSite) Host() string                                     { return "example.org" }
func (s handlerSite) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.h(w, r) }

// A check of an in-place target has the timeout too (issue 28, item 2): a
// site that does not answer, not even once its request is cancelled,
// fails the check with a timeout, and the in-place targets behind it are
// checked meanwhile.
func TestCheckerTimesInPlaceChecksOut(t *testing.T) {
	never := make(chan struct{})
	s := handlerSite{
		t: mustTable(t, map[string]string{"ark:12345/stuck": "/stuck", "ark:12345/a": "/a", "ark:12345/b": "/b"}),
		h: func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/ark:12345/stuck" {
				<-never // a handler that ignores its request's context
			}
		},
	}
	c := fast() // timeout 300ms
	st := startSiteChecker(t, c, s)
	t.Cleanup(func() { close(never) }) // before the checker stops
	if c := waitState(t, st, "/stuck", store.TargetBroken); c.Code != "timeout" {
		t.Errorf("an in-place target whose site never answers: %+v, want broken by a timeout", c)
	}
	for _, target := range []string{"/a", "/b"} {
		waitState(t, st, target, store.TargetOK)
	}
}

// A check of an in-place target reads a few KiB of a body, as over the
// network: the site's handler is refused the rest, and stops writing.
func TestCheckerReadsAFewKiBInPlace(t *testing.T) {
	var mu sync.Mutex
	written, refused := 0, false
	chunk := make([]byte, 64<<10)
	s := handlerSite{
		t: mustTable(t, map[string]string{"ark:12345/big": "/big"}),
		h: func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodHead {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			for range 1024 { // 64 MiB
				n, err := w.Write(chunk)
				mu.Lock()
				written += n
				refused = refused || err != nil
				mu.Unlock()
				if err != nil {
					return
				}
			}
		},
	}
	c := fast()
	st := startSiteChecker(t, c, s)
	waitState(t, st, "/big", store.TargetOK)
	mu.Lock()
	defer mu.Unlock()
	if !refused || written > 16<<10 {
		t.Errorf("the site wrote %d bytes of an in-place answer (refused: %v), want the few KiB a check reads", written, refused)
	}
}

// A check that starts in the site and is redirected out may not be led
// back in by the network: the site's loopback-only area is not asked.
func TestCheckerIsNotRedirectedBackIntoTheSite(t *testing.T) {
	back := startOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://site.internal.invalid/admin", http.StatusFound)
	})
	var mu sync.Mutex
	var asked []string
	s := handlerSite{
		t: mustTable(t, map[string]string{"ark:12345/out": "/out"}),
		h: func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			asked = append(asked, r.URL.Path)
			mu.Unlock()
			if r.URL.Path == "/ark:12345/out" {
				http.Redirect(w, r, back.URL+"/back", http.StatusFound)
			}
		},
	}
	st := startSiteChecker(t, fast(), s)
	if c := waitState(t, st, "/out", store.TargetBroken); c.Code != "bad redirect" {
		t.Errorf("a redirect from the network into the site: %+v, want broken by a bad redirect", c)
	}
	testkit.WaitFor(t, "the origin asked", func() bool { return len(back.seen("/back")) > 0 })
	mu.Lock()
	defer mu.Unlock()
	for _, p := range asked {
		if p != "/ark:12345/out" {
			t.Errorf("the site was asked for %s", p)
		}
	}
}
