package ezid

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/ezid/anvl"
	"github.com/caddy-ark/caddy-ark/table"
)

// errContentType is EZID's refusal of a body that is not text/plain in
// UTF-8, in its words.
var errContentType = badRequest("If specified, Content-Type must be text/plain and encoding must be UTF-8")

// readElements reads the request's body, ANVL, as EZID does: text/plain
// (or no type), UTF-8 (or no charset), at most api.MaxBindBody bytes.
func (c *call) readElements() ([]anvl.Element, error) {
	if ct := c.r.Header.Get("Content-Type"); strings.TrimSpace(ct) != "" {
		mt, params, err := mime.ParseMediaType(ct)
		if err != nil || mt != "text/plain" {
			return nil, errContentType
		}
		if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
			return nil, errContentType
		}
	}
	data, err := io.ReadAll(http.MaxBytesReader(c.w, c.r.Body, api.MaxBindBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, badRequest("request body larger than %d bytes", api.MaxBindBody)
	case err != nil:
		return nil, badRequest("malformed or incomplete request body")
	}
	elems, err := anvl.Parse(string(data))
	switch {
	case errors.Is(err, anvl.ErrEncoding):
		return nil, badRequest("character decoding error")
	case err != nil:
		return nil, badRequest("ANVL parse error (%v)", err)
	}
	return elems, nil
}

// identifier returns the key of raw, an identifier of a request's path in
// any spelling (EZID's "ark:/12345/x5wf" among them). A DOI or a UUID,
// which EZID also holds, is refused: this server holds ARKs and URNs.
func identifier(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	scheme, _, _ := strings.Cut(strings.ToLower(raw), ":")
	if scheme == "doi" || scheme == "uuid" {
		return "", badRequest("invalid identifier: %s identifiers are not served here, only ARK and URN identifiers", strings.ToUpper(scheme))
	}
	key, _, err := table.AssignableKey(raw)
	if err != nil {
		return "", badRequest("invalid identifier (%s)", oneLine(err.Error()))
	}
	return key, nil
}

// ezidURL returns the EZID URL of key on this server, EZID's default
// target: https://<host><path>/id/ark:/12345/x5wf.
func (c *call) ezidURL(key string) string {
	scheme := "http"
	if c.r.TLS != nil {
		scheme = "https"
	}
	u := url.URL{Scheme: scheme, Host: c.r.Host, Path: c.s.path + "/" + opID + "/" + Spell(key)}
	return u.String()
}

// checkOwner refuses elements that give the identifier to another owner
// than the writer, which only an admin may do ("ownership change
// prohibited", as EZID words it).
func checkOwner(who *api.Caller, elems []anvl.Element) error {
	for _, e := range elems {
		if e.Name == OwnerElement && e.Value != "" && e.Value != writerName(who) && !who.IsAdmin() {
			return badRequest("ownership change prohibited")
		}
	}
	return nil
}

// writer returns who as the Writer of a change of key.
func (c *call) writer(who *api.Caller, key string) Writer {
	return Writer{Name: writerName(who), Now: time.Now(), DefaultTarget: c.ezidURL(key)}
}
