package ark

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// bindRequest is the body of PUT id/<id>, and a bulk line's binding: the
// fields of a table Entry without the id.
type bindRequest struct {
	Target      string            `json:"target"`
	Status      int               `json:"status,omitempty"`
	Passthrough *bool             `json:"passthrough,omitempty"`
	Meta        map[string]string `json:"meta,omitempty"`
}

// maxBindBody bounds the body of one binding: the largest target and
// metadata an entry may have, with room for JSON escapes.
const maxBindBody = 4 * (maxTargetBytes + maxMetaKeys*(maxMetaKeyBytes+maxMetaValueBytes))

// serveID answers GET and PUT id/<id>.
func (c *apiCall) serveID(raw string) error {
	switch c.r.Method {
	case http.MethodGet, http.MethodHead:
		return c.get(raw)
	case http.MethodPut:
		return c.put(raw)
	}
	c.w.Header().Set("Allow", "GET, HEAD, PUT")
	return writeAPIError(c.w, http.StatusMethodNotAllowed, "use GET or PUT")
}

// managedKey parses an identifier of the request and checks that the key
// may read it, or write it, and that the store may hold it: an identifier
// of this site that no table assigns.
func (c *apiCall) managedKey(raw string, write bool) (string, error) {
	key, naan, err := assignableKey(raw)
	if err != nil {
		return "", refuse(http.StatusBadRequest, "%v", err)
	}
	if _, ours := c.rs.ours[naan]; naan != "" && !ours {
		return "", refuse(http.StatusBadRequest, "%s: NAAN %s is not this site's: add it with naan", key, naan)
	}
	if !c.key.may(write, key) {
		access := "read"
		if write {
			access = "write"
		}
		return "", refuse(http.StatusForbidden, "key %s may not %s %s", c.key.name, access, key)
	}
	if by, ok := c.rs.table.sourceOf(key); ok {
		return "", refuse(http.StatusConflict, "%s is assigned by %s: change it there, not through the API", key, by)
	}
	return key, nil
}

// get answers GET id/<id>: the binding and its history, with its version
// as ETag.
func (c *apiCall) get(raw string) error {
	key, err := c.managedKey(raw, false)
	if err != nil {
		return c.fail(err)
	}
	b, history, err := c.store.Get(c.r.Context(), key)
	if err != nil {
		return c.fail(storeError(key, err))
	}
	c.w.Header().Set("ETag", etag(b.Version))
	return writeJSON(c.w, http.StatusOK, map[string]any{"binding": b, "history": history})
}

// put answers PUT id/<id>: create or update, under If-Match or
// If-None-Match: * when given.
func (c *apiCall) put(raw string) error {
	key, err := c.managedKey(raw, true)
	if err != nil {
		return c.fail(err)
	}
	var req bindRequest
	if err := readJSON(c.w, c.r, &req); err != nil {
		return c.fail(err)
	}
	b, err := c.binding(key, &req)
	if err != nil {
		return c.fail(err)
	}
	wr := Write{Binding: *b, By: c.key.name}
	if err := c.precondition(key, &wr); err != nil {
		return c.fail(err)
	}
	stored, err := c.store.Apply(c.r.Context(), wr)
	if err != nil {
		return c.fail(storeError(key, err))
	}
	return c.answerBinding(stored)
}

// answerBinding answers with a binding as stored: 201 when it is new.
func (c *apiCall) answerBinding(b *Binding) error {
	status := http.StatusOK
	if b.Version == 1 {
		status = http.StatusCreated
	}
	c.w.Header().Set("ETag", etag(b.Version))
	return writeJSON(c.w, status, b)
}

// binding checks a binding request for key and returns the binding.
func (c *apiCall) binding(key string, req *bindRequest) (*Binding, error) {
	if req.Status == http.StatusGone {
		return nil, refuse(http.StatusBadRequest, "%s: status 410: withdraw an identifier with POST withdraw/<id> and a reason", key)
	}
	e := Entry{ID: key, Target: req.Target, Status: req.Status, Passthrough: req.Passthrough, Meta: req.Meta}
	_, _, a, err := e.compile()
	if err != nil {
		return nil, refuse(http.StatusBadRequest, "%s: %v", key, err)
	}
	return &Binding{Key: key, Target: a.target, Status: a.status, Passthrough: a.passthrough, Meta: a.meta}, nil
}

// precondition sets wr's precondition from If-Match or If-None-Match.
func (c *apiCall) precondition(key string, wr *Write) error {
	if c.r.Header.Get("If-None-Match") == "*" {
		wr.Create = true
	}
	match := strings.TrimSpace(c.r.Header.Get("If-Match"))
	switch {
	case match == "":
		return nil
	case match == "*":
		b, _, err := c.store.Get(c.r.Context(), key)
		if errors.Is(err, ErrNotFound) {
			return refuse(http.StatusPreconditionFailed, "%s: If-Match: * but it is not bound", key)
		}
		if err != nil {
			return storeError(key, err)
		}
		wr.IfVersion = b.Version
		return nil
	}
	v, err := strconv.ParseUint(strings.Trim(strings.TrimPrefix(match, "W/"), `"`), 10, 64)
	if err != nil || v == 0 {
		return refuse(http.StatusBadRequest, "If-Match %s: give the ETag of a GET, such as \"3\"", match)
	}
	wr.IfVersion = v
	return nil
}

// withdrawRequest is the body of POST withdraw/<id>.
type withdrawRequest struct {
	Reason string `json:"reason"`
}

// withdraw answers POST withdraw/<id>: the binding becomes a 410
// tombstone with a reason, for good.
func (c *apiCall) withdraw(raw string) error {
	key, err := c.managedKey(raw, true)
	if err != nil {
		return c.fail(err)
	}
	var req withdrawRequest
	if err := readJSON(c.w, c.r, &req); err != nil {
		return c.fail(err)
	}
	wr, err := c.tombstone(key, req.Reason)
	if err != nil {
		return c.fail(err)
	}
	if err := c.precondition(key, wr); err != nil {
		return c.fail(err)
	}
	stored, err := c.store.Apply(c.r.Context(), *wr)
	if err != nil {
		return c.fail(storeError(key, err))
	}
	return c.answerBinding(stored)
}

// tombstone returns the write that withdraws key for reason: its binding,
// if any, kept with status 410, on condition that it has not changed since.
func (c *apiCall) tombstone(key, reason string) (*Write, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return nil, refuse(http.StatusBadRequest, "%s: say why it is withdrawn: {\"reason\": \"...\"}", key)
	}
	if len(reason) > maxMetaValueBytes {
		return nil, refuse(http.StatusBadRequest, "%s: reason longer than %d bytes", key, maxMetaValueBytes)
	}
	wr := &Write{Binding: Binding{Key: key, Status: http.StatusGone, Passthrough: true, Reason: reason}, By: c.key.name}
	cur, _, err := c.store.Get(c.r.Context(), key)
	switch {
	case errors.Is(err, ErrNotFound):
		wr.Create = true
	case err != nil:
		return nil, storeError(key, err)
	case cur.Status == http.StatusGone:
		return nil, refuse(http.StatusConflict, "%s: %v", key, ErrWithdrawn)
	default:
		wr.Binding.Target, wr.Binding.Passthrough, wr.Binding.Meta = cur.Target, cur.Passthrough, cur.Meta
		wr.IfVersion = cur.Version
	}
	return wr, nil
}

// readJSON reads the request body, at most maxBindBody bytes, into v.
func readJSON(w http.ResponseWriter, r *http.Request, v any) error {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBindBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return refuse(http.StatusRequestEntityTooLarge, "the body is larger than %d bytes", maxBindBody)
	case err != nil:
		return refuse(http.StatusBadRequest, "reading the body: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return refuse(http.StatusBadRequest, "the body is not the JSON object expected: %v", err)
	}
	return nil
}
