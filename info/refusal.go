package info

import (
	"bytes"
	_ "embed"
	htmltemplate "html/template"
	"io"
	"net/http"
	"strconv"
)

// refusalPageText is the HTML page of a refusal, for browsers.
//
//go:embed refusal.html
var refusalPageText string

var refusalPage = htmltemplate.Must(htmltemplate.New("refusal").Parse(refusalPageText))

// RefusalRecord is what the HTML page of a refusal shows.
type RefusalRecord struct {
	Status       int
	StatusText   string
	Reason       string
	ID           string     // the normalized identifier, "" when there is none
	InfoURL      string     // a withdrawn identifier's ?info, else ""
	Tombstone    *Tombstone // a withdrawn identifier's, else nil
	Home         string     // the site's home page
	Organization string     // the organization's name, "" when not configured
}

// WriteRefusal answers with status and a one-line plain-text reason.
func WriteRefusal(w http.ResponseWriter, status int, reason string) error {
	hdr := w.Header()
	hdr.Set("Content-Type", "text/plain; charset=utf-8")
	hdr.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, strconv.Itoa(status)+" "+http.StatusText(status)+": "+reason+"\n")
	return nil
}

// WriteRefusalPage answers with the HTML page of a refusal, for browsers.
// It fails, writing nothing, only if the page cannot be rendered.
func WriteRefusalPage(w http.ResponseWriter, rec RefusalRecord) error {
	var page bytes.Buffer
	if err := refusalPage.Execute(&page, rec); err != nil {
		return err
	}
	hdr := w.Header()
	hdr.Set("Content-Type", "text/html; charset=utf-8")
	hdr.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(rec.Status)
	_, _ = w.Write(page.Bytes())
	return nil
}
