package ark

import (
	"maps"
	"net/http"
	"slices"

	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/signpost"
	"github.com/dgraph-io/ristretto/v2"
)

// machineReadable is what the handler needs to make identifiers readable
// by machines: FAIR Signposting on their answers, their metadata formats,
// and content negotiation between them (docs/machine-readable.md).
type machineReadable struct {
	signposting    bool              // the Link headers of signpost, else only describedby ?info and cite-as
	negotiate      bool              // Accept chooses metadata on identifiers' URLs and ?info
	advertised     []string          // the names of the formats whose describedby links Link headers carry
	bareAdvertised []string          // the same for an identifier without metadata
	described      []signpost.Format // the formats describedby links name (all but the linksets)
	namedTypes     []string          // the media types a plain ARK's Accept may ask for, by namedFormat
	namedFormat    []*metadataFormat
	infoOffers     []string // ?info's media types: infoTypes, then namedTypes
	defaults       defaultsByPrefix
	headers        *ristretto.Cache[string, *signposted] // Link headers by identifier; nil without cache
	bare           [2]bareHeader                         // the header without metadata: not a landing page, a landing page
}

// signposted is the Link header of an identifier, kept with what it was
// built from: it is used again only for the same base, answer and meta.
type signposted struct {
	base   string
	status int
	how    string
	meta   map[string]string
	header []string // never an answer's own: the header directive rewrites those in place
}

// provisionMachineReadable sets up signposting and negotiation from the
// configuration, with a cache of cacheSize Link headers (none when 0).
func (h *Handler) provisionMachineReadable(cacheSize int) error {
	m := machineReadable{signposting: !h.NoSignposting, negotiate: !h.NoNegotiation, advertised: h.SignpostFormats}
	if m.advertised == nil {
		m.advertised = defaultAdvertised
	}
	var err error
	if m.defaults, err = compileMetadataDefaults(h.MetadataDefaults); err != nil {
		return err
	}
	for i := range metadataFormats {
		f := &metadataFormats[i]
		if f.MediaType != signpost.LinksetJSON && f.MediaType != signpost.LinksetText {
			m.described = append(m.described, f.Format)
		}
		for _, t := range f.mediaTypes() {
			m.namedTypes, m.namedFormat = append(m.namedTypes, t), append(m.namedFormat, f)
		}
	}
	m.infoOffers = append(slices.Clip(infoTypes), m.namedTypes...)
	// By default an identifier without metadata advertises only ?info:
	// its record in any other format would hold only unknown values.
	m.bareAdvertised = h.SignpostFormats
	m.bare = [2]bareHeader{newBareHeader(m.described, m.bareAdvertised, false), newBareHeader(m.described, m.bareAdvertised, true)}
	if cacheSize > 0 && m.signposting {
		if m.headers, err = newRistretto[*signposted](cacheSize); err != nil {
			return err
		}
	}
	h.machine = m
	return nil
}

// closeMachineReadable stops the Link header cache's goroutines.
func (h *Handler) closeMachineReadable() {
	if h.machine.headers != nil {
		h.machine.headers.Close()
	}
}

// addSignposting adds the Link header of an answer for the resolved
// identifier res (exact, inherited, template; in place, redirected or
// withdrawn), and Vary: Accept when negotiation could have answered it
// otherwise. A URN has no ?info: it keeps cite-as alone when served in
// place. The values of the headers come from values.
func (h *Handler) addSignposting(hdr http.Header, values *headerValues, at info.Links, res *resolve.Resolution) {
	switch res.Outcome {
	case resolve.OutcomeInPlace, resolve.OutcomeRedirect, resolve.OutcomeRelated, resolve.OutcomeGone:
	default:
		return
	}
	if !res.IsARK || !h.machine.signposting {
		links, n := signpost.BasicLinks(at.Base, res.Key, res.IsARK, res.Outcome == resolve.OutcomeInPlace)
		if n > 0 {
			addLinks(hdr, values.copyOf(links[:n]))
		}
		if res.IsARK && h.machine.negotiate {
			addVary(hdr, values)
		}
		return
	}
	addLinks(hdr, h.linkHeader(values, at, res))
	if h.machine.negotiate {
		addVary(hdr, values)
	}
}

// addLinks adds links, the answer's own, to its Link header.
func addLinks(hdr http.Header, links []string) {
	if hdr["Link"] == nil {
		hdr["Link"] = links
	} else {
		hdr["Link"] = append(hdr["Link"], links...)
	}
}

// addVary says that the answer depends on Accept, with a value from
// values when the answer has none yet.
func addVary(hdr http.Header, values *headerValues) {
	if hdr["Vary"] == nil {
		hdr["Vary"] = values.one("Accept")
	} else if !slices.Contains(hdr["Vary"], "Accept") {
		hdr["Vary"] = append(hdr["Vary"], "Accept")
	}
}

// linkHeader returns the Link header of res's answers: the bare header
// of an identifier without metadata, else from the cache when it holds
// one built from the same base, answer and meta. The slice is the
// answer's own (from values), never the cache's: Caddy's header
// directive (a deferred replace) rewrites an answer's values in place.
func (h *Handler) linkHeader(values *headerValues, at info.Links, res *resolve.Resolution) []string {
	if text, ok := h.bareLinkHeader(at, res); ok {
		return values.one(text)
	}
	var meta map[string]string
	if res.Entry != nil {
		meta = res.Entry.Meta
	}
	c := h.machine.headers
	if c != nil {
		if s, ok := c.Get(res.Key); ok && s.base == at.Base && s.status == res.Status && s.how == res.How && maps.Equal(s.meta, meta) {
			return values.copyOf(s.header)
		}
	}
	advertised := h.machine.advertised
	if !h.hasMetadata(res) {
		advertised = h.machine.bareAdvertised // a bare header too long for the budget
	}
	subject, _ := h.describe(at, res, "")
	header := subject.Header(advertised, signpost.MaxHeaderBytes)
	if c != nil {
		c.Set(res.Key, &signposted{base: at.Base, status: res.Status, how: res.How, meta: meta, header: slices.Clone(header)}, 1)
	}
	return header
}

// describe returns the signposting and the metadata record of the
// resolved identifier res, target its built target.
func (h *Handler) describe(at info.Links, res *resolve.Resolution, target string) (*signpost.Subject, *metadata.Record) {
	var meta map[string]string
	if res.Entry != nil {
		meta = res.Entry.Meta
	}
	var defaults metadata.Defaults
	if res.IsARK {
		defaults = h.machine.defaults.covering(res.Ark)
	}
	url := at.IdentifierURL(res.Key)
	rec := metadata.New(metadata.Identifier{ID: res.Key, URL: url, Resolver: at.Base + "/", Target: target,
		Status: res.Status, Reason: res.Reason}, meta, defaults, h.Organization)
	var types, authors []string
	if rec.Type.General != "" {
		types = []string{"https://schema.org/" + rec.Type.SchemaOrg()}
	}
	for _, c := range rec.Creators {
		if c.URI != "" {
			authors = append(authors, c.URI)
		}
	}
	var items []signpost.Item
	for _, it := range rec.Items {
		items = append(items, signpost.Item{Href: it.URL, Type: it.Type})
	}
	successor := ""
	if rec.Withdrawal != nil && rec.Withdrawal.Successor != nil {
		successor = rec.Withdrawal.Successor.URL
	}
	subject := signpost.NewSubject(url, res.LandingPage, h.machine.described,
		types, rec.License.URI, authors, items, successor)
	return subject, rec
}
