package ark

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/metadata/citation"
	"github.com/caddy-ark/caddy-ark/negotiate"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/signpost"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// serveFormat answers a request for an ARK's metadata in the format
// called name ("?info=bibtex"), q its query: the format's own URL, for
// clients that cannot set Accept and for DOI-style redirects. It answers
// what ?info answers, in that format, for every ARK ?info describes
// (withdrawn ones too); 404 for an unknown format, listing the known
// ones. It returns the outcome of the answer it gave.
func (h *Handler) serveFormat(w http.ResponseWriter, r *http.Request, res *resolve.Resolution, repl *caddy.Replacer, name string, q url.Values) (resolve.Outcome, error) {
	if res.Key == "" || (res.Entry == nil && res.Tmpl == nil) {
		return res.Outcome, h.refuse(w, r, res.Status, res.Reason, res.Key)
	}
	f := formatNamed(name)
	if f == nil {
		return resolve.OutcomeNotFound, h.refuse(w, r, http.StatusNotFound,
			res.Key+" has no metadata format "+strings.ToValidUTF8(name, "")+"; it has "+strings.Join(formatNames(), ", "), res.Key)
	}
	target, err := h.infoTarget(res, repl)
	if err != nil {
		return resolve.OutcomeInvalid, h.refuse(w, r, http.StatusBadRequest, res.Key+": "+err.Error(), res.Key)
	}
	s, rec := h.describe(h.self(r), res, target)
	return resolve.OutcomeMetadata, h.writeMetadata(w, r, f, f.MediaType, formatParams(q), s, rec)
}

// infoTarget returns the target that res's metadata names: the entry's,
// or the template's built for the request.
func (h *Handler) infoTarget(res *resolve.Resolution, repl *caddy.Replacer) (string, error) {
	if res.Tmpl == nil {
		return res.Target, nil
	}
	return buildTarget(res, repl, "")
}

// writeMetadata answers with the metadata rec, whose signposting is s, in
// format f as mediaType (its own or an alias), with params the media
// range's parameters. Any origin may read it (a reference manager in a
// browser), and it links to the identifier it describes.
func (h *Handler) writeMetadata(w http.ResponseWriter, r *http.Request, f *metadataFormat, mediaType, params string, s *signpost.Subject, rec *metadata.Record) error {
	body, err := f.write(rec, s, params)
	if errors.Is(err, citation.ErrUnknownStyle) {
		return h.refuse(w, r, http.StatusBadRequest, "no citation style "+strings.ToValidUTF8(negotiate.Param(params, "style"), "")+
			"; there are "+strings.Join(citation.Styles, ", "), rec.ID)
	}
	if err != nil {
		return caddyhttp.Error(http.StatusInternalServerError, err)
	}
	hdr := w.Header()
	hdr.Set("Content-Type", contentType(mediaType))
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Access-Control-Allow-Origin", "*")
	hdr.Add("Link", "<"+s.URL+`>; rel="describes"`)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
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

// formatNames returns the names of the metadata formats.
func formatNames() []string {
	names := make([]string, len(metadataFormats))
	for i, f := range metadataFormats {
		names[i] = f.Name
	}
	return names
}

// describer returns a function that builds the signposting and metadata
// record of the resolved ARK res with target, for ?info to answer in a
// metadata format when Accept asks for one.
func (h *Handler) describer(at info.Links, res *resolve.Resolution, target string) func() (*signpost.Subject, *metadata.Record) {
	return func() (*signpost.Subject, *metadata.Record) { return h.describe(at, res, target) }
}
