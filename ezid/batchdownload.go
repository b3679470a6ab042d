package ezid

import (
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"sync"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/ezid/anvl"
	"github.com/caddy-ark/caddy-ark/ezid/download"
	"github.com/caddy-ark/caddy-ark/store"
)

// The operations of EZID's batch download: a request, and the file its
// answer names.
const (
	opDownloadRequest = "download_request"
	opDownload        = "download"
)

// downloads writes the batch downloads of every EZID API of the process,
// one at a time, into Caddy's data directory (ark/ezid-downloads), where
// they are kept a week and served across reloads and restarts. It runs
// for the life of the process: one worker, whatever the reloads.
var downloads struct {
	once sync.Once
	svc  *download.Service
	err  error
}

// downloadService returns the process's download service, started on
// first use.
func downloadService() (*download.Service, error) {
	downloads.once.Do(func() {
		downloads.svc = &download.Service{
			Dir:    filepath.Join(caddy.AppDataDir(), "ark", "ezid-downloads"),
			Logger: caddy.Log().Named("ark.ezid.download"),
		}
		downloads.err = downloads.svc.Start(context.Background())
	})
	return downloads.svc, downloads.err
}

// downloadRequest answers POST download_request: the download is queued
// and its URL answered at once (download.Service.ServeRequest), of the
// identifiers the caller may read, of the owners the request names (by
// default the caller's own, as EZID's). The URL names the request, signed
// (downloadLink), so that any node may write the download again.
func (c *call) downloadRequest() error {
	if c.r.Method != http.MethodPost {
		return c.answer(errMethodNotAllowed)
	}
	who, err := c.signedIn()
	if err != nil {
		return c.answer(err)
	}
	svc, err := downloadService()
	if err != nil {
		return c.answer(&failure{http.StatusServiceUnavailable, "internal server error - " + oneLine(err.Error())})
	}
	base := c.downloadBase()
	svc.ServeRequest(c.w, c.r, writerName(who), accounts{c.s.api, c.site, who}, func(form url.Values, rq *download.Request) (string, error) {
		name, err := c.newDownloadLink(form, rq, who)
		if err != nil {
			return "", err
		}
		if _, err := svc.Produce(downloadFile(name, rq), rq, c.records(who, base)); err != nil {
			return "", err
		}
		return base + "/" + opDownload + "/" + name, nil
	})
	return nil
}

// serveDownload answers GET download/<name>: the file once it is
// complete, 404 until then, as EZID's. The URL is the credential, as
// EZID's: signed, and known only to the requestor. A node that has not
// written the download (it was asked on another node) writes it now,
// from the request the name gives, and answers 404 until it is complete.
func (c *call) serveDownload(name string) error {
	if c.r.Method != http.MethodGet && c.r.Method != http.MethodHead {
		return c.answer(errMethodNotAllowed)
	}
	svc, err := downloadService()
	if err != nil {
		return c.answer(&failure{http.StatusServiceUnavailable, "internal server error - " + oneLine(err.Error())})
	}
	rq, who, ok := c.openDownloadLink(name)
	if !ok {
		http.NotFound(c.w, c.r)
		return nil
	}
	file := downloadFile(name, rq)
	ready, err := svc.Produce(file, rq, c.records(who, c.downloadBase()))
	switch {
	case err != nil:
		return c.answer(&failure{http.StatusServiceUnavailable, oneLine(err.Error())})
	case !ready:
		http.NotFound(c.w, c.r)
		return nil
	}
	svc.ServeFile(c.w, c.r, file)
	return nil
}

// downloadBase is the URL of the EZID API, for download links and the
// default targets of a download's records.
func (c *call) downloadBase() string {
	base := c.ezidURL("")
	return base[:len(base)-len("/"+opID+"/")]
}

// records returns the records a download of who reads: every identifier
// who may read, as GET shows its elements, but the names of deleted
// reserved identifiers. base is the EZID API's URL, for the default
// target.
func (c *call) records(who *api.Caller, base string) download.Source {
	a, site := c.s.api, c.site
	return func(ctx context.Context, fn func(*anvl.Record) error) error {
		return a.Bindings(ctx, site, who, func(b *store.Binding) error {
			if Deleted(b) {
				return nil
			}
			id := Spell(b.Key)
			u, _ := url.JoinPath(base, opID, id)
			rec := anvl.Record{ID: id, Elements: Elements(b, View{DefaultTarget: u})}
			return fn(&rec)
		})
	}
}

// accounts answers the owner and ownergroup parameters of a download:
// the people and keys of the API, and its groups; anyone may download
// their own identifiers, an admin anyone's.
type accounts struct {
	api  *api.API
	site api.Site
	who  *api.Caller
}

func (a accounts) Known(name string, group bool) bool {
	return a.api.Known(context.Background(), a.site, name, group)
}

func (a accounts) MayDownload(requestor, name string, group bool) bool {
	return (!group && name == requestor) || a.who.IsAdmin()
}
