package ezid

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/ezid/anvl"
)

// failure is an answer of EZID's API that is not a success: its status
// and its status line's text after "error: ".
type failure struct {
	status int
	text   string
}

func (f *failure) Error() string { return f.text }

// The failures whose words EZID's clients match exactly.
var (
	errUnauthorized     = &failure{http.StatusUnauthorized, "unauthorized"}
	errForbidden        = &failure{http.StatusForbidden, "forbidden"}
	errMethodNotAllowed = &failure{http.StatusMethodNotAllowed, "method not allowed"}
	errNoSuchIdentifier = badRequest("no such identifier")
)

// badRequest is EZID's "error: bad request - <reason>", 400.
func badRequest(format string, args ...any) *failure {
	return &failure{http.StatusBadRequest, "bad request - " + fmt.Sprintf(format, args...)}
}

// failureOf returns err, an error of the API's core or of Apply, as EZID's
// API answers it: its refusals keep their reason after "bad request - ",
// but 401 and 403, which are EZID's exact words; a missing identifier is
// EZID's "no such identifier"; a store that fails is a 503.
func failureOf(err error) *failure {
	var f *failure
	var ee *ElementError
	switch {
	case errors.As(err, &f):
		return f
	case errors.As(err, &ee):
		return badRequest("%s", ee.Error())
	case errors.Is(err, ErrWithdrawn), errors.Is(err, ErrDeleted):
		return badRequest("%v", err)
	}
	switch st := api.ErrorStatus(err); st {
	case http.StatusUnauthorized:
		return errUnauthorized
	case http.StatusForbidden:
		return errForbidden
	case http.StatusNotFound:
		return errNoSuchIdentifier
	case http.StatusServiceUnavailable:
		return &failure{st, "internal server error - " + oneLine(err.Error())}
	default:
		return badRequest("%s", oneLine(err.Error()))
	}
}

// oneLine returns s with its line breaks as spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// answer writes err as EZID's status line "error: ...", with
// WWW-Authenticate for a 401.
func (c *call) answer(err error) error {
	f := failureOf(err)
	if f.status == http.StatusUnauthorized {
		c.w.Header().Set("WWW-Authenticate", `Basic realm="EZID"`)
	}
	if f.status == http.StatusMethodNotAllowed {
		c.w.Header().Set("Allow", c.allowed())
	}
	return c.write(f.status, "error: "+f.text, nil)
}

// allowed returns the methods of the request's operation, for Allow.
func (c *call) allowed() string {
	op, _, _ := c.s.Route(c.r)
	switch op {
	case opID:
		return "GET, HEAD, PUT, POST, DELETE"
	case opShoulder, opDownloadRequest:
		return "POST"
	}
	return "GET, HEAD"
}

// success writes "success: <text>" and elems, EZID's answer.
func (c *call) success(text string, status int, elems []anvl.Element) error {
	return c.write(status, "success: "+text, elems)
}

// write answers with status, the status line and elems in ANVL, as
// text/plain in UTF-8: as EZID's server writes it, the status line alone
// has no line break after it; each element has one.
func (c *call) write(status int, line string, elems []anvl.Element) error {
	body := []byte(anvl.EscapeValue(line))
	if len(elems) > 0 {
		body = append(body, '\n')
		for _, e := range elems {
			body = anvl.AppendElement(body, e.Name, e.Value)
		}
	}
	h := c.w.Header()
	h.Set("Content-Type", "text/plain; charset=UTF-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	c.w.WriteHeader(status)
	if c.r.Method == http.MethodHead {
		return nil
	}
	_, err := c.w.Write(body)
	return err
}

// options refuses a query parameter that the operation does not take, or
// a value it does not allow, as EZID does; allowed maps each parameter to
// its values (lower case), nil for any.
func (c *call) options(allowed map[string][]string) error {
	for name, values := range c.r.URL.Query() {
		want, ok := allowed[name]
		if !ok {
			return badRequest("unrecognized URL query parameter '%s'", oneLine(name))
		}
		if want != nil && !slices.Contains(want, strings.ToLower(values[0])) {
			return badRequest("invalid value for URL query parameter '%s'", oneLine(name))
		}
	}
	return nil
}

// yes reports whether the query parameter name is "yes".
func (c *call) yes(name string) bool {
	return strings.EqualFold(c.r.URL.Query().Get(name), "yes")
}
