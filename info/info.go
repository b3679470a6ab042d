package info

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/resolve"
)

// IsInflection reports whether the request's query is one of the
// inflections that ask an ARK for metadata: "?info", and "?" and "??",
// which the draft recommends treating the same.
func IsInflection(u *url.URL) bool {
	return u.RawQuery == "info" || u.RawQuery == "?" || (u.RawQuery == "" && u.ForceQuery)
}

// Record is what ?info says about an identifier, or about a NAAN or
// shoulder with a policy. Every format renders it; its exported fields and
// methods are what an info_template sees.
type Record struct {
	// ID is the identifier as requested, e.g. "ark:/12345/b2-c4d6".
	ID string `json:"id"`
	// Normalized is its normal form, e.g. "ark:12345/b2c4d6".
	Normalized string `json:"normalized"`
	// URL is the canonical URL of the identifier on this site.
	URL string `json:"url"`
	// Status is the HTTP status the identifier answers with: 200, 302,
	// 303, 307 or 410; 0 for a NAAN or shoulder.
	Status int `json:"status,omitempty"`
	// Target is where the identifier resolves, without query; "" when
	// withdrawn or for a NAAN or shoulder.
	Target string `json:"target,omitempty"`
	// Resolution is how it resolved: "exact", "inherited" (through an
	// ancestor's entry, with a suffix), "template", or "policy" (a NAAN or
	// shoulder).
	Resolution string `json:"resolution"`
	// Via is the key, ancestor or template prefix that resolved it.
	Via string `json:"via,omitempty"`
	// Suffix is what was appended to the ancestor's or template's target.
	Suffix string `json:"suffix,omitempty"`
	// Meta is the entry's metadata (the ancestor's when inherited).
	Meta map[string]string `json:"meta,omitempty"`
	// Policy is the site's persistence policy covering the identifier.
	Policy *resolve.PolicyInfo `json:"policy,omitempty"`
	// Reason says why a withdrawn identifier answers 410: the tombstone.
	Reason string `json:"reason,omitempty"`
	// Resolver is the URL under which this site resolves identifiers.
	Resolver string `json:"resolver"`
	// TargetCheck is what the checks of Target found, when the site
	// checks its targets (targets_check) or its store keeps checks.
	TargetCheck *TargetCheck `json:"target_check,omitempty"`

	host     string // the name mapping authority, for erc-support
	policyAt string // the URL of the policy's own ?info, or ""
	targetAt string // the URL of Target, or ""
	parentAt string // the URL of the ancestor an inherited record resolves through, or ""
}

// element is one labelled value of a record, with a URL when the value
// is worth linking to.
type element struct {
	// Name is the element's label, e.g. "who".
	Name string
	// Value is the element's value; "" when unknown.
	Value string
	// Link is a URL for Value, or "".
	Link string
	// Spans is Value in runs, some linked (a who's ORCID and ROR
	// identifiers), or nil: the HTML page shows them instead of Value.
	Spans []Span
}

// metaElements are the meta keys that a record shows in their own place;
// any others follow them in the details, sorted.
var metaElements = []string{"who", "what", "when", "where", "persistence", "variance", "allocated"}

// NewRecord describes the identifier that res resolved, with target its
// built target ("" for a withdrawn one).
func NewRecord(at Links, core string, res *resolve.Resolution, target string, pol *resolve.PolicyInfo) *Record {
	rec := &Record{ID: core, Normalized: res.Key, URL: at.IdentifierURL(res.Key), Status: res.Status,
		Target: target, Resolution: res.How, Via: res.Via, Suffix: res.Suffix}
	if res.Entry != nil {
		rec.Meta = res.Entry.Meta
	}
	if res.Outcome == resolve.OutcomeGone {
		rec.Reason = res.Reason
		if reason := rec.Meta["reason"]; reason != "" {
			rec.Reason = reason
		}
	}
	rec.finish(at, pol)
	rec.targetAt = httpURL(target)
	if strings.HasPrefix(target, "/") {
		rec.targetAt = rec.URL // served in place: the identifier's own URL, not the internal path
	}
	if res.How == "inherited" {
		rec.parentAt = at.IdentifierURL(res.Via)
	}
	return rec
}

// NewPolicyRecord describes a NAAN or shoulder through its policy.
func NewPolicyRecord(at Links, core string, pol *resolve.PolicyInfo) *Record {
	rec := &Record{ID: core, Normalized: pol.Prefix, URL: at.IdentifierURL(pol.Prefix), Resolution: "policy"}
	rec.finish(at, pol)
	return rec
}

// finish sets what every record says about this site and its policy.
func (rec *Record) finish(at Links, pol *resolve.PolicyInfo) {
	rec.Resolver = at.Base + "/"
	rec.host = at.Who
	if pol != nil {
		rec.Policy, rec.policyAt = pol, at.InfoURL(pol.Prefix)
	}
}

// Kernel returns the ERC kernel about the referent: who, what, when and
// where (its persistent URL unless the metadata gives one).
func (rec *Record) Kernel() []element {
	if rec.Resolution == "policy" {
		return []element{{Name: "who", Value: rec.host}, {Name: "what", Value: "Persistence policy for the ARKs under " + rec.Normalized},
			{Name: "when"}, {Name: "where", Value: rec.URL, Link: rec.URL}}
	}
	where := element{Name: "where", Value: rec.URL, Link: rec.URL}
	if w := rec.Meta["where"]; w != "" {
		where = element{Name: "where", Value: w, Link: httpURL(w)}
	}
	return []element{{Name: "who", Value: rec.Meta["who"], Spans: creatorSpans(rec.Meta["who"])}, {Name: "what", Value: rec.Meta["what"]},
		{Name: "when", Value: rec.Meta["when"]}, where}
}

// Support returns the ERC support segment, the commitment: who makes it
// (the host answering), what it is (the entry's persistence statement,
// else the policy's), when (the allocation date) and where it is
// explained (the policy's own ?info).
func (rec *Record) Support() []element {
	what := rec.Meta["persistence"]
	if what == "" && rec.Policy != nil {
		what = rec.Policy.Statement
	}
	return []element{{Name: "who", Value: rec.host}, {Name: "what", Value: what},
		{Name: "when", Value: rec.allocated()}, {Name: "where", Value: rec.policyAt, Link: rec.policyAt}}
}

// allocated is the allocation date: the metadata's "allocated", else the
// _created that an identifier from EZID keeps (Unix seconds), as an RFC
// 3339 date-time in UTC.
func (rec *Record) allocated() string {
	if v := rec.Meta["allocated"]; v != "" {
		return v
	}
	if secs, err := strconv.ParseInt(rec.Meta["_created"], 10, 64); err == nil {
		return time.Unix(secs, 0).UTC().Format(time.RFC3339)
	}
	return ""
}

// Details returns everything else: the identifier, its resolution, the
// persistence and variance statements, the allocation date, the tombstone
// reason, the policy, then the other metadata keys in sorted order.
func (rec *Record) Details() []element {
	out := []element{{Name: "id", Value: rec.ID}, {Name: "normalized", Value: rec.Normalized}, {Name: "url", Value: rec.URL, Link: rec.URL}}
	add := func(name, value, link string) {
		if value != "" {
			out = append(out, element{Name: name, Value: value, Link: link})
		}
	}
	if rec.Status != 0 {
		add("status", strconv.Itoa(rec.Status)+" "+http.StatusText(rec.Status), "")
	}
	add("target", rec.Target, rec.targetAt)
	out = append(out, rec.targetCheckElements()...)
	add("resolution", rec.Resolution, "")
	add("via", rec.Via, "")
	add("suffix", rec.Suffix, "")
	for _, k := range []string{"persistence", "variance", "allocated"} {
		add(k, rec.Meta[k], "")
	}
	add("reason", rec.Reason, "")
	if rec.Policy != nil {
		add("policy", rec.Policy.Statement, "")
		add("policy-prefix", rec.Policy.Prefix, rec.policyAt)
	}
	for _, k := range slices.Sorted(maps.Keys(rec.Meta)) {
		if !slices.Contains(metaElements, k) && (k != "reason" || rec.Reason == "") {
			v, link := rec.Meta[k], ""
			if k == metadata.KeySuccessor {
				if s := successorOf(rec.Meta, rec.Resolver); s != nil {
					v, link = s.URL, s.URL // as every format gives it: an ARK or URN made its URL here
				}
			}
			add(k, v, link)
		}
	}
	return out
}

// successorOf returns what the successor meta names, nil when nothing:
// an ARK or URN made a URL under resolver, or an http(s) URL.
func successorOf(meta map[string]string, resolver string) *metadata.Successor {
	return metadata.ParseSuccessor(meta[metadata.KeySuccessor], resolver)
}

// Withdrawn reports whether the record is a tombstone.
func (rec *Record) Withdrawn() bool { return rec.Status == http.StatusGone }

// Title is a heading for the record: the referent's "what", else the
// normalized identifier. An inherited record's "what" is its parent's:
// it is titled with its own identifier and shown as part of the parent
// (PartOf).
func (rec *Record) Title() string {
	if what := rec.Meta["what"]; what != "" && rec.Resolution != "inherited" {
		return what
	}
	return rec.Normalized
}

// PartOf is, for an inherited record, the ancestor it resolves through:
// its "what" (else its identifier), linked to it; the zero element for
// other records.
func (rec *Record) PartOf() element {
	if rec.Resolution != "inherited" {
		return element{}
	}
	name := rec.Meta["what"]
	if name == "" {
		name = rec.Via
	}
	return element{Name: "part of", Value: name, Link: rec.parentAt}
}

// Who names the organization, or the site, that makes the commitment.
func (rec *Record) Who() string { return rec.host }

// httpURL returns s when it is an absolute http(s) URL, else "".
func httpURL(s string) string {
	if strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://") {
		return s
	}
	return ""
}

// IsARKCore reports whether the request core is meant as an ARK: it starts
// with "ark:" in any case.
func IsARKCore(core string) bool {
	return len(core) >= 4 && strings.EqualFold(core[:4], "ark:")
}
