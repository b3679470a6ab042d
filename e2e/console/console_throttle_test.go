package console

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// userSignInFrom posts a sign-in with key from the loopback address ip, on a
// connection of its own, with the sign-in cookie and token of u, and
// returns the status.
func userSignInFrom(u *caddytest.ConsoleUser, ip net.IP, token, key string) (int, error) {
	base, _ := url.Parse(u.Site.Base + caddytest.ConsoleUI)
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}}
	c := &http.Client{
		Transport:     &http.Transport{DialContext: dialer.DialContext, DisableKeepAlives: true},
		CheckRedirect: caddytest.Client.CheckRedirect,
		Timeout:       caddytest.Client.Timeout,
	}
	form := url.Values{"csrf": {token}, "key": {key}}
	req, err := http.NewRequest(http.MethodPost, base.String()+"signin", strings.NewReader(form.Encode()))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, ck := range u.Client.Jar.Cookies(base) {
		req.AddCookie(ck)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, fmt.Errorf("from %s: %w", ip, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// Once a flood of wrong keys from more addresses than the console counts
// one by one has filled its table, a new address is slowed down at once,
// not let through unchecked (issue 28, hole 3): the addresses with no
// count of their own share one, and wait for it.
func TestConsoleThrottleHoldsPastAFullTable(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	u := s.NewUser()
	token := u.Token("signin")

	// 10,050 addresses, 20 in each /24 of 127.2.0.0/15: more than the
	// 10,000 counts the console keeps, and each /24 below the failures
	// that slow a whole block down.
	const flood = 10050
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= flood {
					return
				}
				block := i / 20
				ip := net.IPv4(127, byte(2+block/256), byte(block%256), byte(1+i%20))
				status, err := userSignInFrom(u, ip, token, "wrong-key")
				switch {
				case err != nil:
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				case status == http.StatusUnauthorized:
					failed.Add(1)
				case status != http.StatusTooManyRequests:
					mu.Lock()
					errs = append(errs, fmt.Errorf("from %s: %d, want 401 or 429", ip, status))
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("the flood: %v", errs[0])
	}
	t.Logf("the flood: %d of %d wrong keys checked", failed.Load(), flood)

	// Fresh addresses of a fresh /24: none has a count of its own, so each
	// waits for the one they share. (Its waits double, 1 s, 2 s, 4 s: a
	// fourth check would need these 30 requests to take over 7 s.)
	checked := 0
	for i := range 30 {
		status, err := userSignInFrom(u, net.IPv4(127, 9, 0, byte(1+i)), token, "wrong-key")
		if err != nil {
			t.Fatal(err)
		}
		if status != http.StatusTooManyRequests {
			checked++
		}
	}
	if checked > 3 {
		t.Errorf("after the flood, %d of 30 wrong keys from fresh addresses were checked, want at most 3", checked)
	}
}
