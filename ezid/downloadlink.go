package ezid

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/ezid/download"
)

// downloadLink is what the name of a download's URL says, signed with the
// server's key (seal): the request, who asked, where and when. Any node
// holding the key that is sent the URL makes the same download from the
// store (serveDownload), so that the URL works whichever node of a
// balancer the fetch reaches.
type downloadLink struct {
	Form   string   `json:"f"` // the request's parameters, URL-encoded
	Name   string   `json:"n"` // the caller's name, as a session names it
	Groups []string `json:"g,omitempty"`
	Site   string   `json:"s"` // sessionSite
	Made   int64    `json:"t"` // Unix seconds
}

// newDownloadLink returns the name of the download that form asks for
// who, answered as <base>/download/<name>: "<signed link>.txt.gz" (or
// .csv.gz, .xml.gz, .zip, as EZID's files are named).
func (c *call) newDownloadLink(form url.Values, rq *download.Request, who *api.Caller) (string, error) {
	token, err := seal(c.s.key, purposeDownload, downloadLink{Form: form.Encode(), Name: who.Name(), Groups: who.Groups(),
		Site: c.sessionSite(), Made: time.Now().Unix()})
	if err != nil {
		return "", err
	}
	return download.FileName(token, rq.Format, rq.Compression), nil
}

// openDownloadLink returns the request and the caller that name, a name
// of newDownloadLink, was made for, checked again as of now (the caller's
// scopes, the owners they may download); false for a name that this
// server's key did not sign for this site, is older than
// download.Retention, or whose caller may no longer ask for it.
func (c *call) openDownloadLink(name string) (*download.Request, *api.Caller, bool) {
	payload, rest, _ := strings.Cut(name, ".")
	sum, suffix, _ := strings.Cut(rest, ".")
	var l downloadLink
	if !open(c.s.key, purposeDownload, payload+"."+sum, &l) || l.Site != c.sessionSite() ||
		time.Since(time.Unix(l.Made, 0)) > download.Retention {
		return nil, nil, false
	}
	form, err := url.ParseQuery(l.Form)
	if err != nil {
		return nil, nil, false
	}
	who, err := c.callerNamed(l.Name, l.Groups)
	if err != nil {
		return nil, nil, false
	}
	rq, err := download.Check(form, writerName(who), accounts{c.s.api, c.site, who})
	if err != nil || download.FileName("", rq.Format, rq.Compression) != "."+suffix {
		return nil, nil, false
	}
	return rq, who, true
}

// downloadFile is the name of the file in the download directory of the
// download called name: a hash of it, short enough for any file system,
// with its suffix.
func downloadFile(name string, rq *download.Request) string {
	sum := sha256.Sum256([]byte(name))
	return download.FileName(hex.EncodeToString(sum[:16]), rq.Format, rq.Compression)
}
