package console

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// reply is the API's answer to one of the console's requests.
type reply struct {
	status int
	header http.Header
	body   bytes.Buffer
}

func (r *reply) Header() http.Header { return r.header }

func (r *reply) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(p)
}

func (r *reply) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

// ok reports whether the API did what was asked.
func (r *reply) ok() bool { return r.status >= 200 && r.status < 300 }

// decode reads the answer's JSON into v.
func (r *reply) decode(v any) error {
	if err := json.Unmarshal(r.body.Bytes(), v); err != nil {
		return fmt.Errorf("the API's answer (%d) is not what the console expects: %v", r.status, err)
	}
	return nil
}

// problem is the reason the API gave for a refusal, to be shown as is.
func (r *reply) problem() string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(r.body.Bytes(), &e) == nil && e.Error != "" {
		return e.Error
	}
	return fmt.Sprintf("the API answered %d %s", r.status, http.StatusText(r.status))
}

// apiRequest is one request of the console to the API.
type apiRequest struct {
	method string
	route  string // such as "id"
	rest   string // the rest of the path, escaped: an identifier, a shoulder
	query  string // escaped, without "?"
	body   io.Reader
	header http.Header
}

// api sends req to the API, as the signed-in key, in process, and returns
// its answer. An error is the API failing to answer at all.
func (p *page) api(req apiRequest) (*reply, error) {
	path := p.c.api.Prefix + "/" + req.route
	if req.rest != "" {
		path += "/" + req.rest
	}
	if req.query != "" {
		path += "?" + req.query
	}
	r, err := http.NewRequestWithContext(p.r.Context(), req.method, path, req.body)
	if err != nil {
		return nil, err
	}
	r.Host = p.r.Host
	r.RemoteAddr = p.r.RemoteAddr
	r.TLS = p.r.TLS
	for k, v := range req.header {
		r.Header[k] = v
	}
	rep := &reply{header: http.Header{}}
	if err := p.c.api.ServeAs(rep, r, req.route, req.rest, p.sess.key, p.site); err != nil {
		return nil, err
	}
	if rep.status == 0 {
		rep.status = http.StatusOK
	}
	return rep, nil
}

// jsonBody returns v as a JSON request body.
func jsonBody(v any) io.Reader {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.NewReader(b.Bytes())
}

// escapeID escapes an identifier for a path, as a client of the API
// would: "?", "#" and "%" are escaped, "/" and ":" kept.
func escapeID(id string) string {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("%?#\"<>\\^`{|}", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
