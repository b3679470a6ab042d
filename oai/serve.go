package oai

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"time"

	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// maxBody bounds a POST request's body: the arguments of a request are
// short.
const maxBody = 64 << 10

// Site is what the provider reads of the site it serves.
type Site interface {
	// Table returns the table being served and its datestamp.
	Table() (table.Table, time.Time)
	// Store returns the site's store, nil when it has none.
	Store() store.Store
	// Links returns where the site's links point for r.
	Links(r *http.Request) info.Links
	// Organization returns the site's organization, "" when none is set.
	Organization() string
	// Defaults returns the metadata defaults (metadata_defaults) that
	// cover the identifier key, nil when none do: a record is written
	// with them as content negotiation writes it.
	Defaults(key string) metadata.Defaults
}

// Serve answers an OAI-PMH request at c.Path: GET with the arguments in
// the query, POST with them in an application/x-www-form-urlencoded body.
// Protocol errors are answered 200 with an <error>, as OAI-PMH asks;
// other methods get 405, an unreadable body 400.
func (c *Config) Serve(w http.ResponseWriter, r *http.Request, site Site) error {
	var form url.Values
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		var err error
		if form, err = url.ParseQuery(r.URL.RawQuery); err != nil {
			http.Error(w, "the query is not application/x-www-form-urlencoded: "+err.Error(), http.StatusBadRequest)
			return nil
		}
	case http.MethodPost:
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
			http.Error(w, "a POST request's arguments come as application/x-www-form-urlencoded", http.StatusUnsupportedMediaType)
			return nil
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		if err := r.ParseForm(); err != nil {
			http.Error(w, "the body is not application/x-www-form-urlencoded of at most 64 KiB: "+err.Error(), http.StatusBadRequest)
			return nil
		}
		form = r.PostForm
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(w, "OAI-PMH takes GET and POST", http.StatusMethodNotAllowed)
		return nil
	}
	now := time.Now().UTC()
	links := site.Links(r)
	t, stamp := site.Table()
	p := &provider{config: c, now: now, links: links, organization: site.Organization(), defaults: site.Defaults,
		src: &sources{table: t, tableTime: stamp, store: site.Store()}}
	p.name = c.RepositoryName
	if p.name == "" {
		p.name = links.Who
	}
	if p.name == "" {
		p.name = "caddy-ark"
	}
	resp := newResponse(now, links.Base+c.Path)
	req, perr := parseRequest(form)
	if perr == nil {
		resp.request(req)
		perr = p.answer(r.Context(), req, resp)
	}
	if perr != nil && perr.code == codeBusy {
		w.Header().Set("Retry-After", retryAfter)
		http.Error(w, perr.reason+": retry after "+retryAfter+" seconds", http.StatusServiceUnavailable)
		return nil
	}
	if perr != nil && perr.code == "" {
		w.Header().Set("Retry-After", "10")
		http.Error(w, "the store is unavailable: "+perr.reason, http.StatusServiceUnavailable)
		return nil
	}
	if perr != nil {
		resp.error(perr)
	}
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if r.Method == http.MethodHead {
		return nil
	}
	_, err := w.Write(resp.bytes())
	return err
}

// provider answers one request.
type provider struct {
	config       *Config
	now          time.Time
	links        info.Links
	organization string
	defaults     func(key string) metadata.Defaults
	name         string
	src          *sources
}

// answer writes the verb's answer into resp, or returns its error.
func (p *provider) answer(ctx context.Context, req *request, resp *response) *protocolError {
	switch req.verb {
	case "Identify":
		return p.identify(ctx, resp)
	case "ListMetadataFormats":
		return p.listMetadataFormats(ctx, req, resp)
	case "ListSets":
		return p.listSets(ctx, req, resp)
	case "GetRecord":
		return p.getRecord(ctx, req, resp)
	default:
		return p.list(ctx, req, resp)
	}
}

// unavailable is the answer when the store does not answer, or when as
// many lists as allowed are being read (errBusy): OAI-PMH has no code for
// either, and a harvester retries on a 503 after its Retry-After.
func unavailable(err error) *protocolError {
	if errors.Is(err, errBusy) {
		return &protocolError{codeBusy, err.Error()}
	}
	return &protocolError{code: "", reason: err.Error()}
}
