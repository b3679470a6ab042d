package ark

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/metadata/citation"
	"github.com/caddy-ark/caddy-ark/negotiate"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/signpost"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// metadataReply is an identifier's metadata in one format.
type metadataReply struct {
	format    *metadataFormat
	mediaType string // the format's own, or an alias the client asked for
	params    string // the media range's parameters ("style=apa")
	subject   *signpost.Subject
	record    *metadata.Record
	body      []byte
}

// formatAnswer works out the answer to a request for an ARK's metadata
// in format f ("?info=bibtex"), q its query: the format's own URL, for
// clients that cannot set Accept and for DOI-style redirects. It answers
// for every ARK ?info describes (withdrawn ones too), in the format's
// own media type or, for a format known by several, the one Accept
// prefers (the vendor type of schema.org JSON-LD, the citation in HTML).
func (h *Handler) formatAnswer(r *http.Request, repl *caddy.Replacer, res *resolve.Resolution, f *metadataFormat, q url.Values) reply {
	refuse := func(out resolve.Outcome, status int, reason string) reply {
		a := refusal(status, reason, res.Key)
		a.out = out
		return a
	}
	if res.Key == "" || (res.Entry == nil && res.Tmpl == nil) {
		return refuse(res.Outcome, res.Status, res.Reason)
	}
	target, err := h.infoTarget(res, repl)
	if err != nil {
		return refuse(resolve.OutcomeInvalid, http.StatusBadRequest, res.Key+": "+err.Error())
	}
	s, rec := h.describe(h.self(r), res, target)
	mediaType := f.MediaType
	if types := f.urlTypes(); len(types) > 1 {
		// The type Accept prefers, as a redirect by Accept here asked.
		mediaType = types[max(negotiate.Choose(r.Header.Values("Accept"), types), 0)]
	}
	m, err := renderMetadata(f, mediaType, formatParams(q), s, rec)
	if errors.As(err, new(caddyhttp.HandlerError)) {
		return reply{kind: replyError, err: err}
	}
	if err != nil {
		return refuse(resolve.OutcomeInvalid, http.StatusBadRequest, err.Error())
	}
	return reply{kind: replyMetadata, status: http.StatusOK, out: resolve.OutcomeMetadata, metadata: m}
}

// renderMetadata renders rec, whose signposting is s, in format f as
// mediaType with params. Its error is a caddyhttp.HandlerError when the
// format fails, else the request's fault (an unknown citation style).
func renderMetadata(f *metadataFormat, mediaType, params string, s *signpost.Subject, rec *metadata.Record) (*metadataReply, error) {
	var body []byte
	var err error
	if mediaType == "text/html" {
		body, err = f.writeHTML(rec, params)
	} else {
		body, err = f.write(rec, s, params)
	}
	if errors.Is(err, citation.ErrUnknownStyle) {
		return nil, errors.New("no citation style " + strings.ToValidUTF8(negotiate.Param(params, "style"), "") +
			"; there are " + strings.Join(citation.Styles, ", "))
	}
	if err != nil {
		return nil, caddyhttp.Error(http.StatusInternalServerError, err)
	}
	return &metadataReply{format: f, mediaType: mediaType, params: params, subject: s, record: rec, body: body}, nil
}

// infoTarget returns the target that res's metadata names: the entry's,
// or the template's built for the request.
func (h *Handler) infoTarget(res *resolve.Resolution, repl *caddy.Replacer) (string, error) {
	if res.Tmpl == nil {
		return res.Target, nil
	}
	return buildTarget(res, repl, "")
}

// writeMetadata writes m. Any origin may read it (a reference manager in
// a browser), and it links to the identifier it describes. A format known
// by several media types varies by Accept; its HTML may run nothing.
func (h *Handler) writeMetadata(w http.ResponseWriter, m *metadataReply) error {
	hdr := w.Header()
	if len(m.format.urlTypes()) > 1 {
		addVary(hdr, nil)
	}
	if m.mediaType == "text/html" {
		hdr.Set("Content-Security-Policy", "default-src 'none'")
	}
	hdr.Set("Content-Type", contentType(m.mediaType))
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Access-Control-Allow-Origin", "*")
	hdr.Add("Link", "<"+m.subject.URL+`>; rel="describes"`)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(m.body)
	return nil
}

// contentType is the Content-Type of an answer in mediaType: the text
// formats say they are UTF-8, the others (JSON, XML with its declaration)
// say so themselves.
func contentType(mediaType string) string {
	switch {
	case strings.HasPrefix(mediaType, "text/"), mediaType == "application/x-bibtex", mediaType == "application/x-research-info-systems":
		return mediaType + "; charset=utf-8"
	}
	return mediaType
}
