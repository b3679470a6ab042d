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

	"github.com/caddy-ark/caddy-ark/store"
)

// mergePatchType is the media type of a JSON merge patch (RFC 7396), the
// body PATCH id/<id> takes; the types of any JSON body (checkBodyType)
// are read the same way.
const mergePatchType = "application/merge-patch+json"

// patchAttempts is how often PATCH without a precondition merges again
// when the binding changed between its read and its write.
const patchAttempts = 3

// Patch answers PATCH id/<id> for who: the binding of id (as Put takes
// it) merged with p, on the conditions cd (see servePatch).
func (a *API) Patch(ctx context.Context, s Site, who *Caller, id string, p *BindPatch, cd Conditions) (*store.Binding, error) {
	ss, key, err := a.sessionFor(s, who, id, true)
	if err != nil {
		return nil, err
	}
	b, err := ss.patch(ctx, key, p, cd)
	return b, failed(err)
}

// servePatch answers PATCH id/<id>: a JSON merge patch of the binding's
// target, status, passthrough and meta. Fields the patch leaves out keep
// their value; null sets a field back to its default, and removes a meta
// key. An identifier without a binding (or minted and not bound yet) is
// patched from nothing, as PUT would create it. The preconditions and
// refusals are those of PUT, and the merged binding is written on
// condition that it has not changed since it was read.
func (c *apiCall) servePatch(raw string) error {
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
	stored, err := c.patch(c.r.Context(), key, p, conditionsOf(c.r))
	if err != nil {
		return c.fail(err)
	}
	return c.answerBinding(stored)
}

// patch merges p into the binding of key, on the conditions cd; without
// any, it merges again when the binding changed between its read and its
// write.
func (ss *session) patch(ctx context.Context, key string, p *BindPatch, cd Conditions) (*store.Binding, error) {
	for attempt := 1; ; attempt++ {
		stored, err := ss.patchOnce(ctx, key, p, cd)
		if errors.Is(err, store.ErrPrecondition) && !cd.given() && attempt < patchAttempts {
			continue // changed between read and write: merge onto the new one
		}
		if errors.Is(err, store.ErrPrecondition) {
			err = storeError(key, err)
		}
		return stored, err
	}
}

// patchOnce reads the binding of key, merges p into it and writes it on
// condition that it is still the one read. store.ErrPrecondition, the binding
// changed meanwhile, is returned as it is, for patch to merge again.
func (ss *session) patchOnce(ctx context.Context, key string, p *BindPatch, cd Conditions) (*store.Binding, error) {
	wr := store.Write{By: ss.key.name}
	var req BindRequest
	cur, err := ss.current(ctx, key)
	if err != nil {
		return nil, err
	}
	switch {
	case cur == nil:
		wr.Create = true
	case cur.State() == store.StateMinted:
		// Minted, not bound: the patch binds it. A name reserved through
		// EZID's API keeps its target and metadata, which the patch
		// merges into (but for the mark of a deleted one).
		wr.IfVersion = cur.Version
		req = BindRequest{Target: cur.Target, Meta: maps.Clone(cur.Meta)}
		delete(req.Meta, store.DeletedMeta)
	default:
		wr.IfVersion = cur.Version
		pass := cur.Passthrough
		req = BindRequest{Target: cur.Target, Status: cur.Status, Passthrough: &pass, Meta: maps.Clone(cur.Meta)}
	}
	p.apply(&req)
	b, err := ss.a.checkBinding(key, &req)
	if err != nil {
		return nil, err
	}
	wr.Binding = *b
	if err := ss.precondition(ctx, key, cd, &wr); err != nil {
		return nil, err
	}
	stored, err := ss.store.Apply(ctx, wr)
	if errors.Is(err, store.ErrPrecondition) {
		return nil, err
	}
	if err != nil {
		return nil, storeError(key, err)
	}
	countWrites(wr.By, 1)
	return stored, nil
}

// BindPatch is a merge patch of a binding (RFC 7396), the body of PATCH
// id/<id>: for each field, whether the patch sets it, and to what; a
// field set to its zero value (null in JSON) is set back to its default.
type BindPatch struct {
	// Which fields the patch sets.
	SetTarget, SetStatus, SetPassthrough, SetMeta bool
	// The values of the fields it sets, but Meta.
	To BindRequest
	// With SetMeta, the metadata keys it sets, each to a value or, nil,
	// removed; a nil map removes every key.
	Meta map[string]*string
}

// Empty reports whether p sets nothing.
func (p *BindPatch) Empty() bool {
	return !p.SetTarget && !p.SetStatus && !p.SetPassthrough && !p.SetMeta
}

// MarshalJSON writes p as the JSON merge patch PATCH id/<id> takes: the
// fields it sets, null for a field set back to its default.
func (p *BindPatch) MarshalJSON() ([]byte, error) {
	obj := map[string]any{}
	if p.SetTarget {
		obj["target"] = p.To.Target
	}
	if p.SetStatus {
		obj["status"] = p.To.Status
	}
	if p.SetPassthrough {
		obj["passthrough"] = p.To.Passthrough
	}
	if p.SetMeta {
		obj["meta"] = p.Meta
	}
	return json.Marshal(obj)
}

// parseBindPatch reads a JSON merge patch of a binding: an object with
// any of target, status, passthrough and meta, whose meta is an object of
// strings and nulls. A repeated key is refused, as table files refuse it.
func parseBindPatch(data []byte) (*BindPatch, error) {
	fields, err := decodeObject(data)
	if err != nil {
		return nil, err
	}
	p := &BindPatch{}
	for name, value := range fields {
		isNull := bytes.Equal(value, []byte("null"))
		switch name {
		case "target":
			p.SetTarget = true
			err = json.Unmarshal(value, &p.To.Target)
		case "status":
			p.SetStatus = true
			err = json.Unmarshal(value, &p.To.Status)
		case "passthrough":
			p.SetPassthrough = true
			err = json.Unmarshal(value, &p.To.Passthrough)
		case "meta":
			p.SetMeta = true
			if !isNull {
				p.Meta, err = ParseMetaPatch(value)
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
func (p *BindPatch) apply(req *BindRequest) {
	if p.SetTarget {
		req.Target = p.To.Target
	}
	if p.SetStatus {
		req.Status = p.To.Status
	}
	if p.SetPassthrough {
		req.Passthrough = p.To.Passthrough
	}
	if !p.SetMeta {
		return
	}
	if p.Meta == nil {
		req.Meta = nil
		return
	}
	if req.Meta == nil {
		req.Meta = map[string]string{}
	}
	for k, v := range p.Meta {
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
