package ezid

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/ezid/anvl"
	"github.com/caddy-ark/caddy-ark/internal/sitesecret"
)

// Server answers EZID's API for one site, as one more caller of the site's
// API: every read and write is a call of the API's core (api.API.Look,
// Edit, MintBound) with the caller that the request's credentials name.
type Server struct {
	api  *api.API
	path string // "" for the site's root
	key  []byte // signs session cookies and download links
}

// secretStorageKey is where Caddy's storage keeps the secret that signs
// session cookies and download links when the configuration gives none.
const secretStorageKey = "ark/ezid/secret"

// New returns the server of a's EZID API, nil when a has none, with the
// key that signs its session cookies and download links: the ezid
// block's secret, else the one Caddy's storage keeps (sitesecret), so
// that nodes given one secret or sharing Caddy's storage take each
// other's.
func New(ctx caddy.Context, a *api.API) (*Server, error) {
	if a == nil || a.EZID == nil {
		return nil, nil
	}
	key, err := sitesecret.Key(ctx, a.EZID.Secret, secretStorageKey)
	var stored *sitesecret.StorageError
	switch {
	case errors.As(err, &stored):
		return nil, fmt.Errorf("api: ezid: the secret that signs sessions and downloads, %w", err)
	case err != nil:
		return nil, fmt.Errorf("api: ezid: secret %w", err)
	}
	return &Server{api: a, path: a.EZID.Path, key: key}, nil
}

// The operations of EZID's API, the first segment of a request's path
// after the server's path.
const (
	opID       = "id"
	opShoulder = "shoulder"
	opLogin    = "login"
	opLogout   = "logout"
	opStatus   = "status"
)

// Route returns the operation that r asks of EZID's API and the rest of
// its path, decoded (the identifier or shoulder); ok is false when r is
// not for EZID's API, or s is nil (no EZID API).
func (s *Server) Route(r *http.Request) (op, rest string, ok bool) {
	if s == nil {
		return "", "", false
	}
	p, ok := strings.CutPrefix(r.URL.Path, s.path+"/")
	if !ok {
		return "", "", false
	}
	op, rest, hasRest := strings.Cut(p, "/")
	switch op {
	case opID, opShoulder:
		return op, rest, hasRest
	case opLogin, opLogout, opStatus, opDownloadRequest:
		return op, "", !hasRest
	case opDownload:
		return op, rest, hasRest && rest != ""
	}
	return "", "", false
}

// Serve answers a request of EZID's API on site: op and rest are what
// Route returned. An operation checks what EZID's server checks in its
// order: the credentials, then the body, then the URL's query, then the
// identifier or shoulder, so that a client that sends credentials only
// when challenged is challenged first.
func (s *Server) Serve(w http.ResponseWriter, r *http.Request, op, rest string, site api.Site) error {
	c := &call{s: s, w: w, r: r, site: site}
	switch op {
	case opStatus:
		return c.status()
	case opLogin:
		return c.login()
	case opLogout:
		return c.logout()
	case opDownloadRequest:
		return c.downloadRequest()
	case opDownload:
		return c.serveDownload(rest)
	case opShoulder:
		if r.Method != http.MethodPost {
			return c.answer(errMethodNotAllowed)
		}
		return c.mint(rest)
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return c.get(rest)
	case http.MethodPut:
		return c.create(rest)
	case http.MethodPost:
		return c.update(rest)
	case http.MethodDelete:
		return c.delete(rest)
	}
	return c.answer(errMethodNotAllowed)
}

// call is one request of EZID's API.
type call struct {
	s    *Server
	w    http.ResponseWriter
	r    *http.Request
	site api.Site
}

// status answers GET status: EZID is up, with a line "<name>: up" for
// each subsystem that the parameter subsystems names ("*" for all), as
// EZID's server answers it; a name it does not know is "no such
// subsystem".
func (c *call) status() error {
	if c.r.Method != http.MethodGet && c.r.Method != http.MethodHead {
		return c.answer(errMethodNotAllowed)
	}
	if err := c.options(map[string][]string{"subsystems": nil, "detailed": {"yes", "no"}}); err != nil {
		return c.answer(err)
	}
	var elems []anvl.Element
	if names, ok := c.r.URL.Query()["subsystems"]; ok {
		list := names[0]
		if list == "*" {
			list = strings.Join(subsystems, ",")
		}
		for _, name := range strings.Split(list, ",") {
			switch name = strings.TrimSpace(name); {
			case name == "":
			case slices.Contains(subsystems, name):
				elems = append(elems, anvl.Element{Name: name, Value: "up"})
			default:
				return c.answer(badRequest("no such subsystem"))
			}
		}
	}
	return c.success("EZID is up", http.StatusOK, elems)
}

// subsystems are the subsystems of EZID's status, in its order. Neither
// is a service apart here, so each is up while the server answers: there
// is no DataCite to reach (EZID's own server answers "datacite: up" when
// DataCite is not in use), and the search is the store that every other
// request reads.
var subsystems = []string{"datacite", "search"}
