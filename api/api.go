package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddy-ark/caddy-ark/ezid/anvl"
	"github.com/caddy-ark/caddy-ark/mint"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/stats"
	"github.com/caddy-ark/caddy-ark/store"
	"go.uber.org/zap"
)

// API is the management API: identifiers minted, bound, updated and
// withdrawn over HTTP, in the handler's store, under a path prefix of the
// site. README.md ("The API") describes its requests.
type API struct {
	// The path under which the API answers, such as "/api/ark". Requests
	// for other paths are not the API's.
	Prefix string `json:"prefix"`

	// The keys that may use the API.
	Keys []APIKey `json:"keys,omitempty"`

	// Files of more keys, one a line: "<name> <sha256-hex> <scope>...".
	// They are read when the configuration loads.
	KeyFiles []string `json:"key_files,omitempty"`

	// The largest request body of a bulk change or an import, in bytes.
	// Default 64 MiB.
	MaxBody int64 `json:"max_body,omitempty"`

	// The path prefixes, such as "/objects/", that in-place targets bound
	// through the API must start with; none limits them to the site's
	// paths without hidden segments. Redirect targets are not limited.
	InPlace []string `json:"in_place,omitempty"`

	// The web console at <prefix>/ui/, for people rather than programs:
	// search, edit, mint, retarget, import and export in a browser, signed
	// in with a key of the API, or as a person (People), whose scopes apply
	// to everything it shows and does. Off when absent. docs/console.md
	// describes it.
	UI *UI `json:"ui,omitempty"`

	// The people who may use the API and the console, signed in through
	// the site's own authentication (basic_auth or forward_auth) on the
	// same route, and what each may do. Off when absent: keys only.
	People *People `json:"people,omitempty"`

	// EZID's API, version 2, beside this one, for clients written for
	// EZID. Off when absent.
	EZID *EZID `json:"ezid,omitempty"`

	// EZIDBinding makes the binding of an identifier of EZID's downloads,
	// which POST import?format= reads: ezid.ImportBinding, which the
	// handler sets (the ezid package imports this one). Without it, those
	// formats are refused.
	EZIDBinding func(id string, elems []anvl.Element) (*store.Binding, error) `json:"-"`

	people *people            // People compiled; nil when off
	keys   map[string]*apiKey // by the SHA-256 hash of the key
	byName map[string]*apiKey

	// Done when the server begins to shut down (a stop or a reload) or
	// the handler is cleaned up: long requests such as an import stop.
	stopping context.Context
	stop     context.CancelFunc
}

// defaultMaxBody is the default max_body.
const defaultMaxBody = 64 << 20

// Provision checks the API's configuration and reads its key files.
func (a *API) Provision() error {
	if !strings.HasPrefix(a.Prefix, "/") || strings.HasSuffix(a.Prefix, "/") || len(a.Prefix) < 2 {
		return fmt.Errorf("api: prefix %q: a path such as /api/ark, starting with / and not ending with one", a.Prefix)
	}
	if isARKOrURNPath(a.Prefix) {
		return fmt.Errorf("api: prefix %q: identifiers are answered there; choose another path", a.Prefix)
	}
	if a.MaxBody < 0 {
		return fmt.Errorf("api: max_body %d: must be positive", a.MaxBody)
	}
	if err := a.checkInPlace(); err != nil {
		return err
	}
	keys := a.Keys
	for _, f := range a.KeyFiles {
		more, err := readKeyFile(f)
		if err != nil {
			return fmt.Errorf("api: key_file %w", err)
		}
		keys = append(keys, more...)
	}
	if a.People != nil {
		p, err := a.People.compile()
		if err != nil {
			return err
		}
		a.people = p
	}
	if len(keys) == 0 && a.people == nil {
		return errors.New("api: no keys and no people: give key <name> <sha256-hex> <scope>..., key_file <file>, or people with person or group")
	}
	a.keys = map[string]*apiKey{}
	a.byName = map[string]*apiKey{}
	for _, k := range keys {
		hash, c, err := compileKey(k)
		if err != nil {
			return fmt.Errorf("api: %w", err)
		}
		if a.byName[k.Name] != nil || a.keys[hash] != nil {
			return fmt.Errorf("api: key %s: its name or hash is given twice", k.Name)
		}
		a.byName[k.Name] = c
		a.keys[hash] = c
	}
	if a.EZID != nil {
		if err := a.EZID.check(); err != nil {
			return err
		}
	}
	if a.UI != nil {
		return a.UI.check()
	}
	return nil
}

func (a *API) maxBody() int64 {
	if a.MaxBody == 0 {
		return defaultMaxBody
	}
	return a.MaxBody
}

// isARKOrURNPath reports whether path starts with /ark: or /urn:.
func isARKOrURNPath(path string) bool {
	return len(path) >= 5 && (strings.EqualFold(path[1:5], "ark:") || strings.EqualFold(path[1:5], "urn:"))
}

// Route returns the API request that r is: its route and the rest of the
// path after the route's name, escaped; ok is false when r is not for the
// API at all.
func (a *API) Route(r *http.Request) (route, rest string, ok bool) {
	p := r.URL.EscapedPath()
	if r.URL.RawPath != "" {
		p = r.URL.RawPath
	}
	rest, ok = strings.CutPrefix(p, a.Prefix)
	if !ok || (rest != "" && rest[0] != '/') {
		return "", "", false
	}
	route, rest, _ = strings.Cut(strings.TrimPrefix(rest, "/"), "/")
	return route, rest, true
}

// Site is what the API needs of the site it serves: the handler, behind
// this interface so that the API never imports it.
type Site interface {
	// Resolver returns the site's current resolver; nil while the
	// configuration is being replaced, which the API answers 503.
	Resolver() *resolve.Resolver
	// Store returns the site's store; nil when it has none.
	Store() store.Store
	// Minters returns the site's minters.
	Minters() mint.Minters
	// Mint mints n names under shoulder, as Handler.Mint does.
	Mint(ctx context.Context, shoulder string, n int, by string, bind func(key string) (store.Binding, error)) ([]string, error)
	// Logger returns the site's logger.
	Logger() *zap.Logger
	// Stats returns the site's resolution statistics; nil when they are
	// off.
	Stats() *stats.Collector
}

// Serve answers a request for the API of site s: route and rest are
// what route returned.
func (a *API) Serve(w http.ResponseWriter, r *http.Request, route, rest string, s Site) error {
	key, err := a.authenticate(r, s)
	var ae *apiError
	if errors.As(err, &ae) {
		return writeFailure(w, ae) // the store, failing to say whether it has the key
	}
	if errors.Is(err, errNoKey) {
		who, signedIn, perr := a.Person(r)
		switch {
		case signedIn && perr != nil:
			return writeFailure(w, perr)
		case signedIn:
			if cerr := checkNotCrossSite(r); cerr != nil {
				return writeFailure(w, cerr)
			}
			key, err = who.key, nil
		}
	}
	if err != nil {
		desc := ""
		if errors.Is(err, errWrongKey) {
			desc = `, error="invalid_token"`
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="ark"`+desc)
		if errors.Is(err, errNoKey) && a.people != nil {
			err = errNoKeyNorPerson
		}
		return writeAPIError(w, http.StatusUnauthorized, err.Error())
	}
	return a.serve(w, r, route, rest, key, s)
}

// serve answers a request for the API, made with key.
func (a *API) serve(w http.ResponseWriter, r *http.Request, route, rest string, key *apiKey, s Site) error {
	ss, err := a.session(s, &Caller{key})
	if err != nil {
		return writeFailure(w, err)
	}
	c := &apiCall{session: ss, w: w, r: r}
	switch {
	case route == "id" && rest != "":
		return c.serveID(rest)
	case route == "withdraw" && rest != "":
		return c.only(http.MethodPost, func() error { return c.serveWithdraw(rest) })
	case route == "mint" && rest != "":
		return c.only(http.MethodPost, func() error { return c.serveMint(rest) })
	case route == "bulk" && rest == "":
		return c.only(http.MethodPost, c.bulk)
	case route == "export" && rest == "":
		return c.only(http.MethodGet, c.serveExport)
	case route == "import" && rest == "":
		return c.only(http.MethodPost, c.serveImport)
	case route == "backup" && rest == "":
		return c.only(http.MethodGet, c.backup)
	case route == "stats" && rest == "":
		return c.only(http.MethodGet, c.serveStats)
	case route == "ids" && rest == "":
		return c.only(http.MethodGet, c.ids)
	case route == "targets" && rest == "":
		return c.only(http.MethodGet, c.targetReport)
	case route == "targets" && rest == "check":
		return c.only(http.MethodPost, c.checkTargets)
	case route == "retarget" && rest == "":
		return c.only(http.MethodPost, c.retarget)
	case route == "batches" && rest != "":
		return c.serveBatch(rest)
	case route == "changes" && rest == "":
		return c.only(http.MethodGet, c.changes)
	case route == "keys" && rest == "":
		return c.serveKeys()
	case route == "keys" && rest != "":
		return c.only(http.MethodDelete, func() error { return c.serveKey(rest) })
	}
	return writeAPIError(w, http.StatusNotFound, "no such API request: see id/, mint/, withdraw/, bulk, export, import, backup, stats, ids, targets, targets/check, retarget, batches/, changes and keys")
}

// apiCall is one HTTP request to the API, authenticated: the HTTP
// adapter of the session it runs in, which reads the request, calls the
// session and writes its answer.
type apiCall struct {
	*session
	w http.ResponseWriter
	r *http.Request
}

// only runs serve when the request's method is method, else answers 405.
func (c *apiCall) only(method string, serve func() error) error {
	if c.r.Method != method {
		c.w.Header().Set("Allow", method)
		return writeAPIError(c.w, http.StatusMethodNotAllowed, "use "+method)
	}
	return serve()
}

// apiError is a refusal with its status.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func refuse(status int, format string, args ...any) *apiError {
	return &apiError{status: status, msg: fmt.Sprintf(format, args...)}
}

// storeError turns an error of the store into a refusal for key.
func storeError(key string, err error) *apiError {
	var ie *store.ImportError
	switch {
	case errors.As(err, &ie):
		return refuse(http.StatusConflict, "entry %d (%s): %v", ie.Index, ie.Key, ie.Err)
	case errors.Is(err, store.ErrNotFound):
		return refuse(http.StatusNotFound, "%s: %v", key, err)
	case errors.Is(err, store.ErrPrecondition):
		return refuse(http.StatusPreconditionFailed, "%s: %v", key, err)
	case errors.Is(err, store.ErrWithdrawn), errors.Is(err, store.ErrConflict):
		return refuse(http.StatusConflict, "%s: %v", key, err)
	}
	// Anything else is the store failing to read or write: as resolution
	// does, answer that it is unavailable, for now.
	if errors.Is(err, store.ErrUnavailable) {
		return refuse(http.StatusServiceUnavailable, "%v", err)
	}
	return refuse(http.StatusServiceUnavailable, "%v: %v", store.ErrUnavailable, err)
}

// fail answers with err, a refusal or an internal error.
func (c *apiCall) fail(err error) error { return writeFailure(c.w, err) }

// writeFailure answers with err, a refusal or an internal error.
func writeFailure(w http.ResponseWriter, err error) error {
	ae := callError(err)
	if ae.status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", resolve.RetryAfter)
	}
	return writeAPIError(w, ae.status, ae.msg)
}

// Refusal is the body of every answer of the API that is not a success:
// the reason, and the status again; a mint refused after some names were
// minted also lists them.
type Refusal struct {
	Error  string   `json:"error"`
	IDs    []string `json:"ids,omitempty"`
	Status int      `json:"status"`
}

// writeAPIError answers with status and a JSON object holding the reason.
func writeAPIError(w http.ResponseWriter, status int, reason string) error {
	return writeJSON(w, status, Refusal{Error: reason, Status: status})
}

// writeJSON answers with status and v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// etag is the ETag of a binding's version.
func etag(version uint64) string { return `"` + strconv.FormatUint(version, 10) + `"` }
