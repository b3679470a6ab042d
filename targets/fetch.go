package targets

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/urlpath"
)

// verdict is what one check of a target found.
type verdict int

const (
	answered     verdict = iota // the target answered: ok, or suspect
	failed                      // 404, 410, DNS, refused, timeout, …
	unverifiable                // a login or bot wall, or an address not checked
	deferred                    // 429 or 503 with Retry-After: counts as nothing
)

// outcome is the result of one check.
type outcome struct {
	verdict verdict
	code    string        // the last status ("404") or what failed ("timeout")
	final   string        // the URL the check ended at, after redirects
	retry   time.Duration // for deferred: how long the origin asked to wait
}

// The most redirects a check follows, and the most bytes of a body it
// reads.
const (
	maxRedirects = 5
	maxBody      = 4 << 10
)

// errTooManyRedirects ends a check that would follow a sixth redirect.
var errTooManyRedirects = errors.New("more than 5 redirects")

// errIntoSite ends a check at a redirect from the network to the host
// of in-place checks: only the site's own answers lead into the site.
var errIntoSite = errors.New("a redirect from the network to " + urlpath.SiteHost)

// fetcher makes the requests of checks.
type fetcher struct {
	client    *http.Client
	userAgent string
}

// newFetcher returns a fetcher whose requests over the network pass
// through gates and the dialer of s, and whose in-place checks go to site
// (nil: none are made); each request takes one of maxRunning slots once
// its turn has come.
func newFetcher(s *settings, g *gates, site func() Site) *fetcher {
	running := make(chan struct{}, maxRunning)
	base := &http.Transport{
		DialContext:           newDialer(s.timeout, s.allowPrivate),
		TLSHandshakeTimeout:   s.timeout,
		ResponseHeaderTimeout: s.timeout,
		MaxIdleConnsPerHost:   1,
		IdleConnTimeout:       max(2*s.hostInterval, 30*time.Second),
		ForceAttemptHTTP2:     true,
	}
	network := &politeTransport{base: base, gates: g, running: running, timeout: s.timeout}
	rt := &routeTransport{network: network, site: site, running: running, timeout: s.timeout}
	return &fetcher{
		userAgent: s.userAgent,
		client: &http.Client{
			Transport: rt,
			CheckRedirect: func(req *http.Request, via []*http.Request) error {
				if len(via) > maxRedirects {
					return errTooManyRedirects
				}
				if inSite(req.URL) && !inSite(via[len(via)-1].URL) {
					return errIntoSite
				}
				return nil
			},
		},
	}
}

// check checks target once: HEAD, then GET when HEAD is refused. A path
// is asked of the site as the identifier key, which has it, would be:
// the request is marked in its context as an in-place check, which no
// target or redirect can do.
func (f *fetcher) check(ctx context.Context, target, key string) outcome {
	u := target
	if strings.HasPrefix(target, "/") {
		u = "http://" + urlpath.SiteHost + "/" + key
		ctx = context.WithValue(ctx, inPlaceKey{}, true)
	}
	resp, body, err := f.do(ctx, http.MethodHead, u)
	if err == nil && headRefused(resp.StatusCode) {
		resp, body, err = f.do(ctx, http.MethodGet, u)
	}
	if err != nil {
		return failure(err)
	}
	o := judgeAnswer(resp, body)
	switch final := resp.Request.URL; {
	case !inSite(final):
		o.final = final.String()
	case final.String() == u:
		o.final = target // served in place at the identifier
	default:
		o.final = final.RequestURI() // redirected to another path of the site
	}
	return o
}

// headRefused reports whether a status answering HEAD calls for a GET:
// servers that do not implement HEAD, and some that forbid it alone.
func headRefused(status int) bool {
	switch status {
	case http.StatusMethodNotAllowed, http.StatusNotImplemented, http.StatusForbidden, http.StatusBadRequest:
		return true
	}
	return false
}

// do makes one request for u, following redirects, and returns the last
// answer with at most maxBody bytes of its body, closed.
func (f *fetcher) do(ctx context.Context, method, u string) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("User-Agent", f.userAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	var body []byte
	if method == http.MethodGet {
		body, _ = io.ReadAll(io.LimitReader(resp.Body, maxBody))
	}
	return resp, body, nil
}

// judgeAnswer reads the last answer of a check.
func judgeAnswer(resp *http.Response, body []byte) outcome {
	code := strconv.Itoa(resp.StatusCode)
	switch s := resp.StatusCode; {
	case s == http.StatusTooManyRequests:
		return outcome{verdict: deferred, code: code, retry: retryAfter(resp.Header.Get("Retry-After"), time.Minute)}
	case s == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "":
		return outcome{verdict: deferred, code: code, retry: retryAfter(resp.Header.Get("Retry-After"), time.Minute)}
	case s == http.StatusUnauthorized, s == http.StatusForbidden, s == http.StatusProxyAuthRequired,
		s == http.StatusUnavailableForLegalReasons, botWall(resp, body):
		return outcome{verdict: unverifiable, code: code}
	case s >= 200 && s < 400:
		if loginPage(resp.Request.URL) {
			return outcome{verdict: unverifiable, code: "login"}
		}
		return outcome{verdict: answered, code: code}
	}
	return outcome{verdict: failed, code: code}
}

// botWall reports whether an answer is a challenge page put in front of
// the target (Cloudflare's and the like), not the target's own.
func botWall(resp *http.Response, body []byte) bool {
	if resp.Header.Get("Cf-Mitigated") != "" {
		return true
	}
	if resp.StatusCode < 400 {
		return false
	}
	lower := bytes.ToLower(body)
	for _, marker := range [][]byte{[]byte("captcha"), []byte("challenge-platform"), []byte("are you a robot"), []byte("verify you are human")} {
		if bytes.Contains(lower, marker) {
			return true
		}
	}
	return false
}

// loginPage reports whether a check ended at what looks like a login form
// rather than the target.
func loginPage(u *url.URL) bool {
	p := strings.ToLower(u.Path)
	for _, w := range []string{"/login", "/signin", "/sign-in", "/sign_in", "/auth/", "/sso/", "/cas/login", "/shibboleth"} {
		if strings.Contains(p, w) {
			return true
		}
	}
	return false
}

// retryAfter reads a Retry-After header: seconds or an HTTP date. It
// returns def when there is none or it cannot be read, and never more
// than a day.
func retryAfter(h string, def time.Duration) time.Duration {
	d := def
	if n, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && n >= 0 {
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(h); err == nil {
		d = time.Until(t)
	}
	return min(max(d, time.Second), 24*time.Hour)
}

// failure reads the error of a check that got no answer.
func failure(err error) outcome {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var netErr net.Error
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	var recordErr tls.RecordHeaderError
	switch {
	case errors.Is(err, errPrivate):
		return outcome{verdict: unverifiable, code: "private address"}
	case errors.Is(err, errTooManyRedirects):
		return outcome{verdict: failed, code: "redirects"}
	case errors.Is(err, errIntoSite):
		return outcome{verdict: failed, code: "bad redirect"}
	case errors.As(err, &dnsErr):
		return outcome{verdict: failed, code: "dns"}
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return outcome{verdict: failed, code: "timeout"}
	case errors.Is(err, syscall.ECONNREFUSED):
		return outcome{verdict: failed, code: "refused"}
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return outcome{verdict: failed, code: "reset"}
	case errors.As(err, &certErr), errors.As(err, &unknownAuth), errors.As(err, &hostErr), errors.As(err, &invalid), errors.As(err, &recordErr):
		return outcome{verdict: failed, code: "tls"}
	case strings.Contains(err.Error(), "unsupported protocol scheme"), strings.Contains(err.Error(), "Location header"):
		return outcome{verdict: failed, code: "bad redirect"}
	}
	return outcome{verdict: failed, code: "error"}
}
