package targets

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/urlpath"
)

// routeTransport sends the requests of in-place checks to the site, and
// every other one over the network.
type routeTransport struct {
	network http.RoundTripper
	site    func() Site
	running chan struct{} // the running slots, shared with network
	timeout time.Duration
}

// inPlaceKey marks, in its context, a check of an in-place target: the
// only request that may go to the site, with the redirects the site's own
// answers lead to. A URL naming urlpath.SiteHost is not enough.
type inPlaceKey struct{}

// errNoSite fails an in-place check while no site is there to ask.
var errNoSite = errors.New("no site to ask for an in-place target")

// inSite reports whether u names the host of in-place checks.
func inSite(u *url.URL) bool { return urlpath.IsSiteHost(u.Hostname()) }

func (t *routeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !inSite(req.URL) {
		return t.network.RoundTrip(req)
	}
	if req.Context().Value(inPlaceKey{}) == nil {
		// Not an in-place check: the name is under .invalid, which never
		// resolves (RFC 6761), and so a client finds it.
		return nil, &net.DNSError{Err: "no such host", Name: req.URL.Hostname(), IsNotFound: true}
	}
	s := t.site()
	if s == nil {
		return nil, errNoSite
	}
	select {
	case t.running <- struct{}{}:
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	defer func() { <-t.running }()
	return askSite(s, req, t.timeout)
}

// checkKey marks the requests that a check makes of its own site.
type checkKey struct{}

// IsCheck reports whether r is a check's request for an in-place target,
// made of the site itself: the site does not count it as a resolution.
// The client address comes first: no client's is checkRemoteAddr (no
// TCP peer has port 0), and comparing it costs less than walking the
// request's context to its root, as asking for a key it lacks does.
func IsCheck(r *http.Request) bool {
	return r.RemoteAddr == checkRemoteAddr && r.Context().Value(checkKey{}) != nil
}

// checkRemoteAddr is the client address of the site's requests for
// in-place checks: one reserved for documentation (RFC 5737), neither
// loopback nor private, so that a route open to some clients only
// (remote_ip) answers the check as it answers a client from elsewhere,
// never as it answers the server itself.
const checkRemoteAddr = "192.0.2.1:0"

// askSite answers req through the site, as if it had come from a client,
// within timeout: a site that answers later fails the check with a
// timeout, and its handler's request is cancelled.
func askSite(s Site, req *http.Request, timeout time.Duration) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(context.WithValue(req.Context(), checkKey{}, true), timeout)
	defer cancel()
	in := req.Clone(ctx)
	in.Host = s.Host()
	in.URL.Scheme, in.URL.Host = "", ""
	in.RequestURI = in.URL.RequestURI()
	in.RemoteAddr = checkRemoteAddr
	in.Body = http.NoBody
	rec := &recorder{header: http.Header{}}
	served := make(chan struct{})
	go func() {
		defer close(served)
		s.ServeHTTP(rec, in)
	}()
	select {
	case <-served:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	return &http.Response{
		Status: http.StatusText(status), StatusCode: status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: rec.header, Body: io.NopCloser(bytes.NewReader(rec.body.Bytes())), ContentLength: int64(rec.body.Len()),
		Request: req,
	}, nil
}

// errBodyRead stops a handler writing the body of an in-place check
// beyond the maxBody bytes that a check reads, as a client that hangs up.
var errBodyRead = errors.New("the check has read as much of the body as it reads")

// recorder is the ResponseWriter of a request to the site: it keeps the
// status, the header and at most maxBody bytes of the body, and refuses
// the rest.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	if room := maxBody - r.body.Len(); len(p) > room {
		r.body.Write(p[:room])
		return room, errBodyRead
	}
	return r.body.Write(p)
}

// politeTransport makes each request over the network in its turn
// (gates): its origin's, and that of each address its host name resolves
// to, so that names sharing a server share its turn too; then in one of
// the running slots, bounded by the timeout until its body is closed.
type politeTransport struct {
	base    http.RoundTripper
	gates   *gates
	running chan struct{}
	timeout time.Duration
}

func (t *politeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	origin, _ := originOf(req.URL.String())
	leave, err := t.gates.enter(req.Context(), origin)
	if err != nil {
		return nil, err
	}
	addrs, err := lookupAddrs(req.Context(), req.URL, t.timeout)
	if err != nil {
		leave()
		return nil, err
	}
	for _, a := range addrs.keys() {
		leaveAddr, err := t.gates.enter(req.Context(), a)
		if err != nil {
			leave()
			return nil, err
		}
		leave = then(leaveAddr, leave)
	}
	select {
	case t.running <- struct{}{}:
	case <-req.Context().Done():
		leave()
		return nil, req.Context().Err()
	}
	leave = then(func() { <-t.running }, leave)
	ctx, cancel := context.WithTimeout(withAddrs(req.Context(), addrs), t.timeout)
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		leave()
		return nil, err
	}
	resp.Body = &turnBody{ReadCloser: resp.Body, end: func() { cancel(); leave() }}
	return resp, nil
}

// then returns a function calling first, then next.
func then(first, next func()) func() {
	return func() {
		first()
		next()
	}
}

// turnBody ends its request's turn when it is closed.
type turnBody struct {
	io.ReadCloser
	once sync.Once
	end  func()
}

func (b *turnBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.end)
	return err
}
