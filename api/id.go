package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// BindRequest is the body of PUT id/<id>, and a bulk line's binding: the
// fields of a table Entry without the id.
type BindRequest struct {
	Target      string            `json:"target"`
	Status      int               `json:"status,omitempty"`
	Passthrough *bool             `json:"passthrough,omitempty"`
	Meta        map[string]string `json:"meta,omitempty"`
}

// MaxBindBody bounds the body of one binding: the largest target and
// metadata an entry may have, with room for JSON escapes.
const MaxBindBody = 4 * (table.MaxTargetBytes + table.MaxMetaKeys*(table.MaxMetaKeyBytes+table.MaxMetaValueBytes))

// Record is an identifier's binding and its history, oldest first: the
// answer to GET id/<id>.
type Record struct {
	Binding *store.Binding `json:"binding"`
	History []store.Change `json:"history"`
}

// Conditions are the preconditions of a change, the field values of
// If-Match and If-None-Match as a request has them (RFC 9110 13.1): a
// change through the API's Go functions takes them as PUT, PATCH and
// POST withdraw/<id> do. The zero value is no precondition.
type Conditions struct {
	IfMatch, IfNoneMatch []string
}

// conditionsOf returns the preconditions of r.
func conditionsOf(r *http.Request) Conditions {
	return Conditions{IfMatch: r.Header.Values("If-Match"), IfNoneMatch: r.Header.Values("If-None-Match")}
}

// given reports whether a precondition is given, as a request's
// Header.Get would see it.
func (cd Conditions) given() bool {
	return len(cd.IfMatch) > 0 && cd.IfMatch[0] != "" || len(cd.IfNoneMatch) > 0 && cd.IfNoneMatch[0] != ""
}

// sessionFor returns who's session on s and the key of id, an identifier
// as a request's path has it, checked as one this site manages (write:
// for a change).
func (a *API) sessionFor(s Site, who *Caller, id string, write bool) (*session, string, error) {
	ss, err := a.session(s, who)
	if err != nil {
		return nil, "", err
	}
	key, err := ss.managedKey(id, write)
	if err != nil {
		return nil, "", err
	}
	return ss, key, nil
}

// Get answers GET id/<id> for who: the binding and history of id, an
// identifier as a request's path has it (see Put).
func (a *API) Get(ctx context.Context, s Site, who *Caller, id string) (*Record, error) {
	ss, key, err := a.sessionFor(s, who, id, false)
	if err != nil {
		return nil, err
	}
	rec, err := ss.get(ctx, key)
	return rec, failed(err)
}

// Put answers PUT id/<id> for who: id, an identifier as a request's path
// has it (with "?", "#" and "%" escaped), bound as req says, on the
// conditions cd. It returns the binding as stored: version 1 when new.
// An error is a refusal: ErrorStatus gives its status.
func (a *API) Put(ctx context.Context, s Site, who *Caller, id string, req BindRequest, cd Conditions) (*store.Binding, error) {
	ss, key, err := a.sessionFor(s, who, id, true)
	if err != nil {
		return nil, err
	}
	b, err := ss.put(ctx, key, &req, cd)
	return b, failed(err)
}

// serveID answers GET, PUT and PATCH id/<id>.
func (c *apiCall) serveID(raw string) error {
	switch c.r.Method {
	case http.MethodGet, http.MethodHead:
		return c.serveGet(raw)
	case http.MethodPut:
		return c.servePut(raw)
	case http.MethodPatch:
		return c.servePatch(raw)
	}
	c.w.Header().Set("Allow", "GET, HEAD, PUT, PATCH")
	return writeAPIError(c.w, http.StatusMethodNotAllowed, "use GET, PUT or PATCH")
}

// serveGet answers GET id/<id>: the binding and its history, with its
// version as ETag.
func (c *apiCall) serveGet(raw string) error {
	key, err := c.managedKey(raw, false)
	if err != nil {
		return c.fail(err)
	}
	rec, err := c.get(c.r.Context(), key)
	if err != nil {
		return c.fail(err)
	}
	c.w.Header().Set("ETag", etag(rec.Binding.Version))
	return writeJSON(c.w, http.StatusOK, rec)
}

// get reads the binding of key and its history.
func (ss *session) get(ctx context.Context, key string) (*Record, error) {
	b, history, err := ss.store.Get(ctx, key)
	if err != nil {
		return nil, storeError(key, err)
	}
	return &Record{Binding: b, History: history}, nil
}

// servePut answers PUT id/<id> through Put: create or update, under
// If-Match or If-None-Match: * when given. The identifier is checked
// before the body is read, so that a PUT the key may not make is refused
// without reading it.
func (c *apiCall) servePut(raw string) error {
	if _, err := c.managedKey(raw, true); err != nil {
		return c.fail(err)
	}
	var req BindRequest
	if err := readJSON(c.w, c.r, &req); err != nil {
		return c.fail(err)
	}
	stored, err := c.a.Put(c.r.Context(), c.site, &Caller{c.key}, raw, req, conditionsOf(c.r))
	if err != nil {
		return c.fail(err)
	}
	return c.answerBinding(stored)
}

// put binds key as req says, on the conditions cd.
func (ss *session) put(ctx context.Context, key string, req *BindRequest, cd Conditions) (*store.Binding, error) {
	b, err := ss.a.checkBinding(key, req)
	if err != nil {
		return nil, err
	}
	wr := store.Write{Binding: *b, By: ss.key.name}
	if err := ss.precondition(ctx, key, cd, &wr); err != nil {
		return nil, err
	}
	stored, err := ss.store.Apply(ctx, wr)
	if err != nil {
		return nil, storeError(key, err)
	}
	countWrites(wr.By, 1)
	return stored, nil
}

// answerBinding answers with a binding as stored: 201 when it is new.
func (c *apiCall) answerBinding(b *store.Binding) error {
	status := http.StatusOK
	if b.Version == 1 {
		status = http.StatusCreated
	}
	c.w.Header().Set("ETag", etag(b.Version))
	return writeJSON(c.w, status, b)
}

// checkBinding checks a binding request for key, as every change through
// the API is checked, and returns the binding.
func (a *API) checkBinding(key string, req *BindRequest) (*store.Binding, error) {
	if req.Status == http.StatusGone {
		return nil, refuse(http.StatusBadRequest, "%s: status 410: withdraw an identifier with POST withdraw/<id> and a reason", key)
	}
	if err := checkMetaText(key, req.Meta); err != nil {
		return nil, err
	}
	e := table.Entry{ID: key, Target: req.Target, Status: req.Status, Passthrough: req.Passthrough, Meta: req.Meta}
	_, _, as, err := e.Compile()
	if err != nil {
		return nil, refuse(http.StatusBadRequest, "%s: %v", key, err)
	}
	if err := a.checkTarget(key, req.Target, req.Status); err != nil {
		return nil, err
	}
	return &store.Binding{Key: key, Target: as.Target, Status: as.Status, Passthrough: as.Passthrough, Meta: as.Meta}, nil
}

// precondition sets wr's precondition from If-Match and If-None-Match,
// evaluated as RFC 9110 13.2.2 says: If-Match first, by strong comparison
// (a weak tag W/"3" never matches), then If-None-Match, by weak
// comparison; either may be "*" or a list of entity tags. A precondition
// that fails is 412; the store then checks, as it writes, that the binding
// is still the one the precondition was evaluated against. wr may already
// require a version, or that there is no binding (a withdrawal does).
func (ss *session) precondition(ctx context.Context, key string, cd Conditions, wr *store.Write) error {
	im, imSet, err := parseETags(cd.IfMatch)
	if err != nil {
		return refuse(http.StatusBadRequest, "If-Match: %v: give the ETag of a GET, such as \"3\", or *", err)
	}
	inm, inmSet, err := parseETags(cd.IfNoneMatch)
	if err != nil {
		return refuse(http.StatusBadRequest, "If-None-Match: %v: give the ETag of a GET, such as \"3\", or *", err)
	}
	switch {
	case !imSet && !inmSet:
		return nil
	case !inmSet && !im.any:
		// The store compares the version itself, when there is one to compare.
		vs := im.versions()
		if len(vs) == 0 {
			return refuse(http.StatusPreconditionFailed, "%s: If-Match %s: no version has that strong ETag", key, im)
		}
		if len(vs) == 1 {
			return requireVersion(key, wr, vs[0])
		}
	case !imSet && inm.any:
		if wr.IfVersion != 0 {
			return refuse(http.StatusPreconditionFailed, "%s: If-None-Match: * but it is bound", key)
		}
		wr.Create = true
		return nil
	}
	cur, _, err := ss.store.Get(ctx, key)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return storeError(key, err)
	}
	exists := err == nil
	if imSet {
		if !exists {
			return refuse(http.StatusPreconditionFailed, "%s: If-Match %s but it is not bound", key, im)
		}
		if !im.any && !im.matches(cur.Version, false) {
			return refuse(http.StatusPreconditionFailed, "%s: If-Match %s: its ETag is %s", key, im, etag(cur.Version))
		}
	}
	if inmSet && exists && (inm.any || inm.matches(cur.Version, true)) {
		return refuse(http.StatusPreconditionFailed, "%s: If-None-Match %s: its ETag is %s", key, inm, etag(cur.Version))
	}
	if exists {
		return requireVersion(key, wr, cur.Version)
	}
	if wr.IfVersion != 0 {
		return refuse(http.StatusPreconditionFailed, "%s: it has changed meanwhile", key)
	}
	wr.Create = true
	return nil
}

// requireVersion makes wr conditional on the binding of key being at
// version v.
func requireVersion(key string, wr *store.Write, v uint64) error {
	switch {
	case wr.Create:
		return refuse(http.StatusPreconditionFailed, "%s: If-Match but it is not bound", key)
	case wr.IfVersion != 0 && wr.IfVersion != v:
		return refuse(http.StatusPreconditionFailed, "%s: its ETag is %s, not %s", key, etag(wr.IfVersion), etag(v))
	}
	wr.IfVersion = v
	return nil
}

// etagList is the value of an If-Match or If-None-Match field: "*" or
// entity tags.
type etagList struct {
	any  bool
	tags []entityTag
	raw  string
}

// entityTag is an entity tag: its opaque part, without the quotes.
type entityTag struct {
	weak   bool
	opaque string
}

func (l etagList) String() string { return l.raw }

// parseETags reads the field values of an If-Match or If-None-Match:
// "*", or a comma-separated list of entity tags (RFC 9110 8.8.3, 13.1.1).
// set is false when the field is absent or holds only empty elements.
func parseETags(values []string) (l etagList, set bool, err error) {
	l.raw = strings.Join(values, ", ")
	s := l.raw
	if strings.TrimSpace(s) == "*" {
		l.any = true
		return l, true, nil
	}
	for {
		s = strings.TrimLeft(s, " \t,")
		if s == "" {
			return l, len(l.tags) > 0, nil
		}
		var t entityTag
		if rest, ok := strings.CutPrefix(s, "W/"); ok {
			t.weak, s = true, rest
		}
		if s == "" || s[0] != '"' {
			return l, true, fmt.Errorf("%q is not a list of entity tags", l.raw)
		}
		end := strings.IndexByte(s[1:], '"')
		if end < 0 {
			return l, true, fmt.Errorf("%q: an entity tag is not closed", l.raw)
		}
		t.opaque, s = s[1:1+end], s[2+end:]
		for i := 0; i < len(t.opaque); i++ {
			if c := t.opaque[i]; c < 0x21 || c == 0x7f {
				return l, true, fmt.Errorf("%q: an entity tag holds a space or control character", l.raw)
			}
		}
		l.tags = append(l.tags, t)
		s = strings.TrimLeft(s, " \t")
		if s != "" && s[0] != ',' {
			return l, true, fmt.Errorf("%q: entity tags are separated by commas", l.raw)
		}
	}
}

// matches reports whether the ETag of version is in l, by weak
// comparison or strong (where a weak tag matches nothing).
func (l etagList) matches(version uint64, weak bool) bool {
	want := strconv.FormatUint(version, 10)
	for _, t := range l.tags {
		if t.opaque == want && (weak || !t.weak) {
			return true
		}
	}
	return false
}

// versions returns the versions that the strong entity tags of l are the
// ETags of, without repeats.
func (l etagList) versions() []uint64 {
	var vs []uint64
	for _, t := range l.tags {
		v, err := strconv.ParseUint(t.opaque, 10, 64)
		if t.weak || err != nil || v == 0 || strconv.FormatUint(v, 10) != t.opaque || slices.Contains(vs, v) {
			continue
		}
		vs = append(vs, v)
	}
	return vs
}

// WithdrawRequest is the body of POST withdraw/<id>.
type WithdrawRequest struct {
	Reason string `json:"reason"`
}

// Withdraw answers POST withdraw/<id> for who: id (as Put takes it)
// becomes a 410 tombstone with reason, for good, on the conditions cd.
func (a *API) Withdraw(ctx context.Context, s Site, who *Caller, id, reason string, cd Conditions) (*store.Binding, error) {
	ss, key, err := a.sessionFor(s, who, id, true)
	if err != nil {
		return nil, err
	}
	b, err := ss.withdraw(ctx, key, reason, cd)
	return b, failed(err)
}

// serveWithdraw answers POST withdraw/<id>.
func (c *apiCall) serveWithdraw(raw string) error {
	key, err := c.managedKey(raw, true)
	if err != nil {
		return c.fail(err)
	}
	var req WithdrawRequest
	if err := readJSON(c.w, c.r, &req); err != nil {
		return c.fail(err)
	}
	stored, err := c.withdraw(c.r.Context(), key, req.Reason, conditionsOf(c.r))
	if err != nil {
		return c.fail(err)
	}
	return c.answerBinding(stored)
}

// withdraw withdraws key for reason, on the conditions cd.
func (ss *session) withdraw(ctx context.Context, key, reason string, cd Conditions) (*store.Binding, error) {
	wr, err := ss.tombstone(ctx, key, reason)
	if err != nil {
		return nil, err
	}
	if err := ss.precondition(ctx, key, cd, wr); err != nil {
		return nil, err
	}
	stored, err := ss.store.Apply(ctx, *wr)
	if err != nil {
		return nil, storeError(key, err)
	}
	countWrites(wr.By, 1)
	return stored, nil
}

// tombstone returns the write that withdraws key for reason: its binding,
// if any, kept with status 410 (its metadata without a "reason", which the
// withdrawal's replaces), on condition that it has not changed since.
func (ss *session) tombstone(ctx context.Context, key, reason string) (*store.Write, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return nil, refuse(http.StatusBadRequest, "%s: say why it is withdrawn: {\"reason\": \"...\"}", key)
	}
	if len(reason) > table.MaxMetaValueBytes {
		return nil, refuse(http.StatusBadRequest, "%s: reason longer than %d bytes", key, table.MaxMetaValueBytes)
	}
	if why := badChar(reason, true); why != "" {
		return nil, refuse(http.StatusBadRequest, "%s: the reason %s", key, why)
	}
	wr := &store.Write{Binding: store.Binding{Key: key, Status: http.StatusGone, Passthrough: true, Reason: reason}, By: ss.key.name}
	cur, err := ss.current(ctx, key)
	if err != nil {
		return nil, err
	}
	if cur == nil {
		wr.Create = true
		return wr, nil
	}
	// The reason given is the reason: a metadata "reason" would stand
	// for it in ?info and in exports (importer.EntryOf).
	wr.Binding.Target, wr.Binding.Passthrough, wr.Binding.Meta = cur.Target, cur.Passthrough, maps.Clone(cur.Meta)
	delete(wr.Binding.Meta, table.ReasonMeta)
	if len(wr.Binding.Meta) == 0 {
		wr.Binding.Meta = nil
	}
	wr.IfVersion = cur.Version
	return wr, nil
}

// current reads the binding of key for a change: nil when there is none
// (the change creates it); a withdrawn identifier is refused, 409, since it
// never changes again.
func (ss *session) current(ctx context.Context, key string) (*store.Binding, error) {
	cur, _, err := ss.store.Get(ctx, key)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, storeError(key, err)
	case cur.State() == store.StateWithdrawn:
		return nil, refuse(http.StatusConflict, "%s: %v", key, store.ErrWithdrawn)
	}
	return cur, nil
}

// readJSON reads the request body, at most maxBindBody bytes, into v,
// refusing a Content-Type that checkBodyType does not take with also.
func readJSON(w http.ResponseWriter, r *http.Request, v any, also ...string) error {
	if err := checkBodyType(r.Header.Get("Content-Type"), also...); err != nil {
		return err
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBindBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return refuse(http.StatusRequestEntityTooLarge, "the body is larger than %d bytes", MaxBindBody)
	case err != nil:
		return refuse(http.StatusBadRequest, "reading the body: %v", err)
	}
	if err := decodeOne(data, v); err != nil {
		return refuse(http.StatusBadRequest, "the body is not the JSON object expected: %v", err)
	}
	return nil
}

// decodeOne decodes data, which must hold one JSON value and nothing after
// it but white space, into v, refusing fields v does not have and keys
// repeated in an object.
func decodeOne(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("more follows the JSON object")
	}
	return repeatedKey(data)
}
