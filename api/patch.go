package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"

	"github.com/caddy-ark/caddy-ark/store"
)

// mergePatchType is the media type of a JSON merge patch (RFC 7396), the
// body PATCH id/<id> takes; the types of any JSON body (checkBodyType)
// are read the same way.
const mergePatchType = "application/merge-patch+json"

// patchAttempts is how often PATCH without a precondition merges again
// when the binding changed between its read and its write.
const patchAttempts = 3

// patch answers PATCH id/<id>: a JSON merge patch of the binding's
// target, status, passthrough and meta. Fields the patch leaves out keep
// their value; null sets a field back to its default, and removes a meta
// key. An identifier without a binding (or minted and not bound yet) is
// patched from nothing, as PUT would create it. The preconditions and
// refusals are those of PUT, and the merged binding is written on
// condition that it has not changed since it was read.
func (c *apiCall) patch(raw string) error {
	key, err := c.managedKey(raw, true)
	if err != nil {
		return c.fail(err)
	}
	var data json.RawMessage
	if err := readJSON(c.w, c.r, &data, mergePatchType); err != nil {
		var ae *apiError
		if errors.As(err, &ae) && ae.status == http.StatusUnsupportedMediaType {
			c.w.Header().Set("Accept-Patch", mergePatchType)
		}
		return c.fail(err)
	}
	p, err := parseBindPatch(data)
	if err != nil {
		return c.fail(refuse(http.StatusBadRequest, "%s: the body is not a merge patch of a binding: %v", key, err))
	}
	conditional := c.r.Header.Get("If-Match") != "" || c.r.Header.Get("If-None-Match") != ""
	for attempt := 1; ; attempt++ {
		stored, err := c.patchOnce(key, p)
		if errors.Is(err, store.ErrPrecondition) && !conditional && attempt < patchAttempts {
			continue // changed between read and write: merge onto the new one
		}
		if errors.Is(err, store.ErrPrecondition) {
			err = storeError(key, err)
		}
		if err != nil {
			return c.fail(err)
		}
		return c.answerBinding(stored)
	}
}

// patchOnce reads the binding of key, merges p into it and writes it on
// condition that it is still the one read. store.ErrPrecondition, the binding
// changed meanwhile, is returned as it is, for patch to merge again.
func (c *apiCall) patchOnce(key string, p *bindPatch) (*store.Binding, error) {
	wr := store.Write{By: c.key.name}
	var req BindRequest
	cur, err := c.current(key)
	if err != nil {
		return nil, err
	}
	switch {
	case cur == nil:
		wr.Create = true
	case cur.Status == 0:
		// Minted, not bound: nothing to keep.
		wr.IfVersion = cur.Version
	default:
		wr.IfVersion = cur.Version
		pass := cur.Passthrough
		req = BindRequest{Target: cur.Target, Status: cur.Status, Passthrough: &pass, Meta: maps.Clone(cur.Meta)}
	}
	p.apply(&req)
	b, err := c.binding(key, &req)
	if err != nil {
		return nil, err
	}
	wr.Binding = *b
	if err := c.precondition(key, &wr); err != nil {
		return nil, err
	}
	stored, err := c.store.Apply(c.r.Context(), wr)
	if errors.Is(err, store.ErrPrecondition) {
		return nil, err
	}
	if err != nil {
		return nil, storeError(key, err)
	}
	return stored, nil
}

// bindPatch is a merge patch of a binding: for each field, whether the
// patch sets it, and to what; a field set to null is set to its zero
// value, which is its default.
type bindPatch struct {
	target, status, passthrough, meta bool
	req                               BindRequest
	metaPatch                         map[string]*string // nil removes the key
}

// parseBindPatch reads a JSON merge patch of a binding: an object with
// any of target, status, passthrough and meta, whose meta is an object of
// strings and nulls. A repeated key is refused, as table files refuse it.
func parseBindPatch(data []byte) (*bindPatch, error) {
	fields, err := decodeObject(data)
	if err != nil {
		return nil, err
	}
	p := &bindPatch{}
	for name, value := range fields {
		isNull := bytes.Equal(value, []byte("null"))
		switch name {
		case "target":
			p.target = true
			err = json.Unmarshal(value, &p.req.Target)
		case "status":
			p.status = true
			err = json.Unmarshal(value, &p.req.Status)
		case "passthrough":
			p.passthrough = true
			err = json.Unmarshal(value, &p.req.Passthrough)
		case "meta":
			p.meta = true
			if !isNull {
				p.metaPatch, err = ParseMetaPatch(value)
			}
		default:
			return nil, fmt.Errorf("unknown field %q: a binding has target, status, passthrough and meta", name)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return p, nil
}

// ParseMetaPatch reads the meta of a merge patch: each key a string, or
// null to remove it.
func ParseMetaPatch(data []byte) (map[string]*string, error) {
	fields, err := decodeObject(data)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*string, len(fields))
	for k, value := range fields {
		var s *string
		if err := json.Unmarshal(value, &s); err != nil {
			return nil, fmt.Errorf("%q: the value must be a string, or null to remove it", k)
		}
		out[k] = s
	}
	return out, nil
}

// decodeObject reads data, one JSON object and nothing after it but white
// space, into its members, refusing a repeated key.
func decodeObject(data []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name := tok.(string) // an object's members start with their key
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("%q appears twice: a repeated key is refused, so that the patch means what its reader sees", name)
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		out[name] = value
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more follows the JSON object")
	}
	return out, nil
}

// apply merges p into req, as RFC 7396 says.
func (p *bindPatch) apply(req *BindRequest) {
	if p.target {
		req.Target = p.req.Target
	}
	if p.status {
		req.Status = p.req.Status
	}
	if p.passthrough {
		req.Passthrough = p.req.Passthrough
	}
	if !p.meta {
		return
	}
	if p.metaPatch == nil {
		req.Meta = nil
		return
	}
	if req.Meta == nil {
		req.Meta = map[string]string{}
	}
	for k, v := range p.metaPatch {
		if v == nil {
			delete(req.Meta, k)
		} else {
			req.Meta[k] = *v
		}
	}
	if len(req.Meta) == 0 {
		req.Meta = nil
	}
}
