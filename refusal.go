package ark

import (
	"bytes"
	_ "embed"
	"errors"
	htmltemplate "html/template"
	"io"
	"net/http"
	"strconv"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// refusalPageText is the HTML page of a refusal, for browsers.
//
//go:embed refusal.html
var refusalPageText string

var refusalPage = htmltemplate.Must(htmltemplate.New("refusal").Parse(refusalPageText))

// refusalRecord is what the HTML page of a refusal shows.
type refusalRecord struct {
	Status       int
	StatusText   string
	Reason       string
	ID           string // the normalized identifier, "" when there is none
	InfoURL      string // a withdrawn identifier's ?info, else ""
	Home         string // the site's home page
	Organization string // the organization's name, "" when not configured
}

// refuse answers a request for an identifier with status and a one-line
// reason; key is the normalized identifier ("" when the request is not
// one). When the site has a handle_errors block, the refusal is returned as
// a Caddy error for it to answer, with the status in
// {http.error.status_code} and the reason in {http.error.message}.
// Otherwise a client that prefers text/html gets a small page, and every
// other client the reason as one line of text/plain.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, status int, reason, key string) error {
	if srv, ok := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server); ok && srv.Errors != nil && len(srv.Errors.Routes) > 0 {
		return caddyhttp.Error(status, errors.New(reason))
	}
	w.Header().Add("Vary", "Accept")
	if negotiate(r.Header.Values("Accept")) != formatHTML {
		return writeRefusal(w, status, reason)
	}
	at := h.self(r)
	rec := refusalRecord{Status: status, StatusText: http.StatusText(status), Reason: reason, ID: key,
		Home: at.base + "/", Organization: h.Organization}
	if status == http.StatusGone && key != "" {
		rec.InfoURL = at.infoURL(key)
	}
	var page bytes.Buffer
	if err := refusalPage.Execute(&page, rec); err != nil {
		return caddyhttp.Error(http.StatusInternalServerError, err)
	}
	hdr := w.Header()
	hdr.Set("Content-Type", "text/html; charset=utf-8")
	hdr.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(page.Bytes())
	return nil
}

// writeRefusal answers with status and a one-line plain-text reason.
func writeRefusal(w http.ResponseWriter, status int, reason string) error {
	hdr := w.Header()
	hdr.Set("Content-Type", "text/plain; charset=utf-8")
	hdr.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, strconv.Itoa(status)+" "+http.StatusText(status)+": "+reason+"\n")
	return nil
}
