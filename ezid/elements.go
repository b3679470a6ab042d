package ezid

import (
	"cmp"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/ezid/anvl"
	"github.com/caddy-ark/caddy-ark/store"
)

// EZID's internal elements: names that start with "_".
const (
	TargetElement     = "_target"
	StatusElement     = store.StatusMeta
	ProfileElement    = "_profile"
	ExportElement     = store.ExportMeta
	CreatedElement    = "_created"
	UpdatedElement    = "_updated"
	OwnerElement      = "_owner"
	OwnerGroupElement = "_ownergroup"
	CrossrefElement   = "_crossref"
)

// DeletedMeta marks the Status 0 binding that a reserved identifier
// deleted through EZID's API leaves, so that its name is never assigned
// again: its value is when it was deleted (Unix seconds).
const DeletedMeta = store.DeletedMeta

// The states of _status.
const (
	Reserved    = "reserved"
	Public      = "public"
	Unavailable = "unavailable"
)

// DefaultProfile is the _profile of an identifier that names none, EZID's
// default for ARKs.
const DefaultProfile = "erc"

// Spell returns a normalized key in EZID's spelling: an ARK with "ark:/"
// ("ark:12345/x5wf" is "ark:/12345/x5wf"); a URN as it is.
func Spell(key string) string {
	if rest, ok := strings.CutPrefix(key, "ark:"); ok && !strings.HasPrefix(rest, "/") {
		return "ark:/" + rest
	}
	return key
}

// StatusOf returns b's EZID status: Reserved (Status 0), Unavailable
// with a reason (store.StatusMeta, or a withdrawal, whose reason is the
// binding's), or Public.
func StatusOf(b *store.Binding) (state, reason string) {
	switch {
	case b.Status == 0:
		return Reserved, ""
	case b.Status == http.StatusGone:
		return Unavailable, b.Reason
	}
	if reason, ok := b.Unavailable(); ok {
		return Unavailable, reason
	}
	return Public, ""
}

// StatusValue returns the value of _status for a state and reason:
// "unavailable | <reason>" for an unavailable one with a reason.
func StatusValue(state, reason string) string {
	if state == Unavailable && reason != "" {
		return Unavailable + " | " + reason
	}
	return state
}

// Deleted reports whether b is what a reserved identifier deleted through
// EZID's API leaves (DeletedMeta).
func Deleted(b *store.Binding) bool {
	return b.Status == 0 && b.Meta[DeletedMeta] != ""
}

// View is what Elements needs to know besides the binding.
type View struct {
	// When the identifier was first stored (its oldest history record),
	// for a binding without _created; zero: the binding's Updated.
	Created time.Time

	// The identifier's EZID URL, its _target when the binding has none
	// (a reserved identifier given no target).
	DefaultTarget string
}

// Elements returns the EZID elements of b, as GET /id/<identifier> and
// the ANVL download show them: _owner, _ownergroup (when known),
// _created, _updated, _target, _profile, _status and _export, then the
// other metadata in the order of their names. _owner is the _owner kept,
// else the writer of the binding (without "person:"); _created and
// _updated are Unix seconds (see the package's doc).
func Elements(b *store.Binding, v View) []anvl.Element {
	elems := make([]anvl.Element, 0, 8+len(b.Meta))
	add := func(name, value string) {
		if value != "" {
			elems = append(elems, anvl.Element{Name: name, Value: value})
		}
	}
	owner := cmp.Or(b.Meta[OwnerElement], strings.TrimPrefix(b.By, "person:"))
	add(OwnerElement, owner)
	add(OwnerGroupElement, b.Meta[OwnerGroupElement])
	created := b.Meta[CreatedElement]
	if created == "" {
		t := v.Created
		if t.IsZero() {
			t = b.Updated
		}
		created = unix(t)
	}
	add(CreatedElement, created)
	updated := unix(b.Updated)
	if b.Version <= 1 && b.Meta[UpdatedElement] != "" {
		updated = b.Meta[UpdatedElement]
	}
	add(UpdatedElement, updated)
	add(TargetElement, cmp.Or(b.Target, v.DefaultTarget))
	add(ProfileElement, cmp.Or(b.Meta[ProfileElement], DefaultProfile))
	add(StatusElement, StatusValue(StatusOf(b)))
	export := "yes"
	if store.Unexported(b.Meta) {
		export = "no"
	}
	add(ExportElement, export)
	var rest []anvl.Element
	for name, value := range b.Meta {
		if !internal(name) && value != "" {
			rest = append(rest, anvl.Element{Name: name, Value: value})
		}
	}
	slices.SortFunc(rest, func(x, y anvl.Element) int { return strings.Compare(x.Name, y.Name) })
	return append(elems, rest...)
}

// internal reports whether name is one of the internal elements that
// Elements writes from the binding, or DeletedMeta, rather than as
// metadata.
func internal(name string) bool {
	switch name {
	case OwnerElement, OwnerGroupElement, CreatedElement, UpdatedElement, TargetElement,
		ProfileElement, StatusElement, ExportElement, DeletedMeta:
		return true
	}
	return false
}

// unix returns t as Unix seconds; "" for the zero time.
func unix(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return strconv.FormatInt(t.Unix(), 10)
}
