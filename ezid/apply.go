package ezid

import (
	"errors"
	"maps"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/ezid/anvl"
	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/store"
)

// ElementError is an element that Apply refuses, worded as EZID words
// it: its Error is what follows "error: bad request - ".
type ElementError struct {
	Name   string // the element
	Reason string // why, as a phrase: "invalid identifier status change"
}

func (e *ElementError) Error() string { return e.Name + ": " + e.Reason }

// ErrWithdrawn refuses every change of an identifier withdrawn through the
// native API (status 410), which is final.
var ErrWithdrawn = errors.New("identifier withdrawn for good: it cannot change")

// ErrDeleted refuses to create again a reserved identifier that was
// deleted (Deleted): its name is never assigned again.
var ErrDeleted = errors.New("identifier deleted: its name is never assigned again")

// Writer is who applies elements, and how far they are trusted.
type Writer struct {
	// The person writing, without "person:": the _owner of an identifier
	// they create without naming one.
	Name string

	// An import of EZID's own records: _created, _updated and
	// _ownergroup are kept, and any status may be given to a new
	// identifier (EZID's "restricted settings"). A client of the API is
	// never trusted.
	Trusted bool

	// The time of the change, the _created of a new identifier.
	Now time.Time

	// The identifier's EZID URL: its target when a public one is given
	// none, as EZID defaults it.
	DefaultTarget string
}

// unavailablePattern is how EZID reads "unavailable" with an optional
// reason.
var unavailablePattern = regexp.MustCompile(`^unavailable(?:$| *\|(.*))`)

// Apply returns the binding of key that elems make of cur, the binding as
// stored (nil for a new identifier), as EZID applies a create (cur nil)
// or an update: each element overwrites, an empty value deletes (the
// target then falls back to w.DefaultTarget). EZID's status transitions
// hold: "reserved" only for a new or reserved identifier, "unavailable"
// only for one that exists and is not reserved, "public" from any. A
// client's whole-record datacite element gets key in its <identifier>
// (embedIdentifier); an import's is kept as EZID wrote it. A
// refusal is an *ElementError, ErrWithdrawn for a withdrawn cur or
// ErrDeleted for a deleted one; cur is never changed. Apply checks no
// permission (_owner included) and no target: the API core checks the
// binding as it checks every write.
func Apply(cur *store.Binding, key string, elems []anvl.Element, w Writer) (*store.Binding, error) {
	b := store.Binding{Key: key, Passthrough: true}
	state := ""
	if cur != nil {
		switch {
		case cur.Status == http.StatusGone:
			return nil, ErrWithdrawn
		case Deleted(cur):
			return nil, ErrDeleted
		}
		b = *cur
		b.Meta = maps.Clone(cur.Meta)
		state, _ = StatusOf(cur)
	}
	if b.Meta == nil {
		b.Meta = map[string]string{}
	}
	next, reason := state, ""
	if next == "" {
		next = Public
	}
	if next == Unavailable {
		_, reason = StatusOf(cur)
	}
	for _, e := range elems {
		var err error
		switch e.Name {
		case TargetElement:
			b.Target = e.Value
		case StatusElement:
			next, reason, err = transition(state, e.Value, w.Trusted)
		case ExportElement:
			err = setExport(b.Meta, e.Value)
		case ProfileElement, OwnerElement:
			if e.Value == "" && e.Name == OwnerElement {
				err = &ElementError{e.Name, "no such user"}
			}
			set(b.Meta, e.Name, e.Value)
		case CreatedElement, UpdatedElement, OwnerGroupElement:
			err = setRestricted(b.Meta, e, w.Trusted)
		case CrossrefElement:
			err = &ElementError{e.Name, "only DOI identifiers may be registered with Crossref"}
		case metadata.KeyDataCiteXML:
			value := e.Value
			if value != "" && !w.Trusted {
				value, err = embedIdentifier(value, key)
			}
			set(b.Meta, e.Name, value)
		default:
			if strings.HasPrefix(e.Name, "_") {
				err = &ElementError{e.Name, "field is not settable"}
			}
			set(b.Meta, e.Name, e.Value)
		}
		if err != nil {
			return nil, err
		}
	}
	if cur == nil {
		if b.Meta[OwnerElement] == "" && w.Name != "" {
			b.Meta[OwnerElement] = w.Name
		}
		if b.Meta[CreatedElement] == "" && !w.Now.IsZero() {
			b.Meta[CreatedElement] = strconv.FormatInt(w.Now.Unix(), 10)
		}
	}
	if !w.Trusted {
		// The binding's Updated is the time of this change.
		delete(b.Meta, UpdatedElement)
	}
	delete(b.Meta, StatusElement)
	switch next {
	case Reserved:
		b.Status = 0
	case Unavailable:
		b.Meta[StatusElement] = StatusValue(Unavailable, reason)
		fallthrough
	default:
		if b.Status == 0 {
			b.Status = http.StatusFound
		}
		if b.Target == "" {
			b.Target = w.DefaultTarget
		}
	}
	if len(b.Meta) == 0 {
		b.Meta = nil
	}
	return &b, nil
}

// transition reads a _status value given to an identifier in state (""
// for a new one) and returns the new state and its reason, as EZID
// allows it.
func transition(state, value string, trusted bool) (next, reason string, err error) {
	switch {
	case value == Reserved:
		if state == "" || state == Reserved || trusted {
			return Reserved, "", nil
		}
	case value == Public:
		return Public, "", nil
	case unavailablePattern.MatchString(value):
		if state != "" && state != Reserved || trusted {
			m := unavailablePattern.FindStringSubmatch(value)
			return Unavailable, strings.TrimSpace(m[1]), nil
		}
	default:
		return "", "", &ElementError{StatusElement, "invalid identifier status"}
	}
	return "", "", &ElementError{StatusElement, "invalid identifier status change"}
}

// setExport sets _export: "no" is kept, "yes" is the default and none.
func setExport(meta map[string]string, value string) error {
	switch strings.ToLower(value) {
	case "yes":
		delete(meta, ExportElement)
	case "no":
		meta[ExportElement] = "no"
	default:
		return &ElementError{ExportElement, "value must be 'yes' or 'no'"}
	}
	return nil
}

// setRestricted sets an element only an import of EZID's records may set:
// _created and _updated as Unix seconds.
func setRestricted(meta map[string]string, e anvl.Element, trusted bool) error {
	if !trusted {
		return &ElementError{e.Name, "field is not settable"}
	}
	if e.Name != OwnerGroupElement && e.Value != "" {
		if _, err := strconv.ParseInt(e.Value, 10, 64); err != nil {
			return &ElementError{e.Name, "not a Unix time"}
		}
	}
	set(meta, e.Name, e.Value)
	return nil
}

// set sets meta[name] to value; an empty value deletes it.
func set(meta map[string]string, name, value string) {
	if value == "" {
		delete(meta, name)
		return
	}
	meta[name] = value
}

// DeletedBinding returns what a reserved identifier deleted at now leaves
// in the store: a bare Status 0 binding marked DeletedMeta, which keeps
// its name from being minted or created again.
func DeletedBinding(key string, now time.Time) store.Binding {
	return store.Binding{Key: key, Passthrough: true, Meta: map[string]string{DeletedMeta: strconv.FormatInt(now.Unix(), 10)}}
}
