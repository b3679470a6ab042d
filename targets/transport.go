package targets

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"
)

// routeTransport sends requests for internalHost to the site, and every
// other one over the network.
type routeTransport struct {
	network http.RoundTripper
	site    func() Site
}

// errNoSite fails an in-place check while no site is there to ask.
var errNoSite = errors.New("no site to ask for an in-place target")

func (t *routeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host != internalHost {
		return t.network.RoundTrip(req)
	}
	s := t.site()
	if s == nil {
		return nil, errNoSite
	}
	return askSite(s, req), nil
}

// checkKey marks the requests that a check makes of its own site.
type checkKey struct{}

// IsCheck reports whether r is a check's request for an in-place target,
// made of the site itself: the site does not count it as a resolution.
func IsCheck(r *http.Request) bool {
	return r.Context().Value(checkKey{}) != nil
}

// askSite answers req through the site, as if it had come from a client.
func askSite(s Site, req *http.Request) *http.Response {
	in := req.Clone(context.WithValue(req.Context(), checkKey{}, true))
	in.Host = s.Host()
	in.URL.Scheme, in.URL.Host = "", ""
	in.RequestURI = in.URL.RequestURI()
	in.RemoteAddr = "127.0.0.1:0"
	in.Body = http.NoBody
	rec := &recorder{header: http.Header{}}
	s.ServeHTTP(rec, in)
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	return &http.Response{
		Status: http.StatusText(status), StatusCode: status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: rec.header, Body: io.NopCloser(bytes.NewReader(rec.body.Bytes())), ContentLength: int64(rec.body.Len()),
		Request: req,
	}
}

// recorder is the ResponseWriter of a request to the site: it keeps the
// status, the header and at most maxBody bytes of the body.
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
	if room := maxBody - r.body.Len(); room > 0 {
		r.body.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// politeTransport makes each request over the network in its origin's
// turn (gates), bounded by the timeout until its body is closed.
type politeTransport struct {
	base    http.RoundTripper
	gates   *gates
	timeout time.Duration
}

func (t *politeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	origin, _ := originOf(req.URL.String())
	leave, err := t.gates.enter(req.Context(), origin)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		leave()
		return nil, err
	}
	resp.Body = &turnBody{ReadCloser: resp.Body, end: func() { cancel(); leave() }}
	return resp, nil
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
