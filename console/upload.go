package console

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/importer"
)

// importView is what the import page shows.
type importView struct {
	Formats  []string
	Summary  string // what the conversion read
	Problems string // the lines refused, as the importer reports them
	Imported int
}

// importFormats are the formats the import form offers; "auto" guesses
// from the file's name and first line, as caddy ark import does.
var importFormats = []string{"auto", "csv", "tsv", "json", "rewritemap", "nginx"}

// maxProblemText bounds the problems reported back.
const maxProblemText = 64 << 10

// importForm shows the import form, with the outcome of an upload.
func (p *page) importForm(problem string, status int, done ...importView) error {
	v := importView{}
	if len(done) > 0 {
		v = done[0]
	}
	v.Formats = importFormats
	if status == 0 {
		status = http.StatusOK
	}
	notice := ""
	if problem == "" && v.Summary != "" {
		notice = fmt.Sprintf("Imported: %d new in the store (%s).", v.Imported, v.Summary)
	}
	return p.render(status, view{Title: "Import", Notice: notice, Error: problem, Page: v}, "import")
}

// importFile imports an uploaded file: converted from its format into a
// table file by the importer as it is read, and sent on to the API's
// import, which keeps all of it or, at the first entry refused, none.
// The form's fields come before the file: its token is checked before
// anything is read of the file.
func (p *page) importFile() error {
	p.r.Body = http.MaxBytesReader(p.w, p.r.Body, p.c.api.BodyLimit()+maxForm)
	mr, err := p.r.MultipartReader()
	if err != nil {
		return p.importForm("Send the file with the form on this page.", http.StatusBadRequest)
	}
	fields := map[string]string{}
	var file *multipart.Part
	for file == nil {
		part, err := mr.NextPart()
		if err != nil {
			return p.importForm("The form holds no file: choose one.", http.StatusBadRequest)
		}
		name := part.FormName()
		if name == "file" {
			file = part
			break
		}
		value, err := io.ReadAll(io.LimitReader(part, 1<<10))
		if err != nil {
			return p.importForm("The form could not be read: "+err.Error(), http.StatusBadRequest)
		}
		fields[name] = string(value)
	}
	if !p.c.validToken(p.sess, fields[csrfField]) {
		return p.problem(http.StatusForbidden, "This form has no valid token (it was not sent from this console in this session): nothing was done.")
	}
	opts := importer.Options{Format: fields["format"], Encoding: fields["encoding"], EZIDBinding: p.c.api.EZIDBinding}
	if err := opts.Check(); err != nil {
		return p.importForm(err.Error(), http.StatusBadRequest)
	}
	name := file.FileName()
	if name == "" {
		name = "upload"
	}
	in := io.Reader(file)
	if opts.Format == "auto" || opts.Format == "" {
		br := bufio.NewReader(file)
		opts.Format, in = importer.Guess(name, br), br
	}
	return p.convertAndImport(in, name, opts)
}

// convertAndImport converts in and imports it through the API.
func (p *page) convertAndImport(in io.Reader, name string, opts importer.Options) error {
	pr, pw := io.Pipe()
	var problems limitedBuffer
	converted := make(chan importer.Stats, 1)
	go func() {
		stats, err := importer.Convert(in, name, opts, pw, &problems)
		pw.CloseWithError(err)
		converted <- stats
	}()
	res, err := p.c.api.Import(p.r.Context(), p.site, p.sess.key, pr)
	// The API has stopped reading: unblock the conversion if it has not
	// finished, and wait for it.
	pr.CloseWithError(errors.New("the import has ended"))
	stats := <-converted
	v := importView{Summary: stats.String(), Problems: problems.String()}
	if v.Problems != "" {
		return p.importForm("The file has lines that cannot be imported: nothing was imported.", http.StatusBadRequest, v)
	}
	if err != nil {
		return p.importForm(err.Error()+": nothing was imported.", api.ErrorStatus(err), v)
	}
	v.Imported = res.Imported
	return p.importForm("", http.StatusOK, v)
}

// limitedBuffer keeps the first maxProblemText bytes written to it.
type limitedBuffer struct{ b bytes.Buffer }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := maxProblemText - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string { return strings.TrimSpace(l.b.String()) }
