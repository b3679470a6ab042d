package download

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
)

// Accounts says which users and groups exist, and whose identifiers a
// requestor may download (EZID: its own, a proxied user's, a group
// administrator's group's).
type Accounts interface {
	// Known reports whether name is a user, or a group when group is set.
	Known(name string, group bool) bool
	// MayDownload reports whether requestor may download the identifiers
	// of the user name, or of the group name when group is set.
	MayDownload(requestor, name string, group bool) bool
}

// ErrForbidden is a request for identifiers that the requestor may not
// download: EZID answers "error: forbidden" (403).
var ErrForbidden = errors.New("forbidden")

// Service runs download requests: each is queued, and written, one at a
// time, to Dir, where it appears under its name when complete. The name
// is the caller's (Produce), so that a download asked again under the
// same name, on another node of the same store, is written again there
// from the same request. Each request brings its Source (the store, as its requestor may read it) and
// Accounts, so that one Service may serve the requests of several sites
// and configurations.
type Service struct {
	// Dir is where the downloads are written and kept (Retention).
	Dir string
	// Logger says when a download is ready (with the addresses of its
	// notify parameter) or failed.
	Logger *zap.Logger

	mu      sync.Mutex
	queue   chan *job
	pending map[string]bool // the files queued or being written
}

// queueLength is how many requests may wait for the one being written;
// more are refused as EZID refuses what it cannot take.
const queueLength = 64

// Start runs the queue until ctx is done: one download at a time, as
// EZID writes them, so that downloads never compete with each other for
// the store. It removes the expired downloads of Dir as it goes.
func (s *Service) Start(ctx context.Context) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	s.mu.Lock()
	s.queue = make(chan *job, queueLength)
	s.pending = map[string]bool{}
	s.mu.Unlock()
	if err := removeExpired(s.Dir, time.Now()); err != nil {
		s.Logger.Warn("batch download", zap.Error(err))
	}
	go func() {
		tick := time.NewTicker(time.Hour)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if err := removeExpired(s.Dir, time.Now()); err != nil {
					s.Logger.Warn("batch download", zap.Error(err))
				}
			case j := <-s.queue:
				s.run(ctx, j)
			}
		}
	}()
	return nil
}

// run writes the download of j.
func (s *Service) run(ctx context.Context, j *job) {
	start := time.Now()
	n, err := j.write(ctx, s.Dir, start)
	s.mu.Lock()
	delete(s.pending, j.name)
	s.mu.Unlock()
	if err != nil {
		s.Logger.Error("batch download failed", zap.String("file", j.name), zap.Error(err))
		return
	}
	s.Logger.Info("batch download ready", zap.String("file", j.name), zap.Int("records", n),
		zap.Duration("took", time.Since(start)), zap.Strings("notify", j.rq.Notify))
}

// Check reads the download request of form for requestor, refusing a bad
// request with a *BadRequest, an owner or group the requestor may not
// download (acc) with ErrForbidden. The request selects the requestor's
// own identifiers when it names no owner or group.
func Check(form url.Values, requestor string, acc Accounts) (*Request, error) {
	rq, err := ParseRequest(form)
	if err != nil {
		return nil, err
	}
	for _, o := range rq.Owners {
		if !acc.Known(o, false) {
			return nil, &BadRequest{"parameter 'owner': no such user"}
		}
	}
	for _, g := range rq.OwnerGroups {
		if !acc.Known(g, true) {
			return nil, &BadRequest{"parameter 'ownergroup': no such group"}
		}
	}
	for _, o := range rq.Owners {
		if !acc.MayDownload(requestor, o, false) {
			return nil, ErrForbidden
		}
	}
	for _, g := range rq.OwnerGroups {
		if !acc.MayDownload(requestor, g, true) {
			return nil, ErrForbidden
		}
	}
	rq.Select.Owners, rq.Select.OwnerGroups = rq.Owners, rq.OwnerGroups
	if len(rq.Owners)+len(rq.OwnerGroups) == 0 {
		rq.Select.Owners = []string{requestor}
	}
	return rq, nil
}

// Produce makes sure that the download of rq, of the records of src, is
// in Dir as file or on its way: ready when it is there, complete;
// otherwise it is queued, unless it is queued or being written already.
// file is a name of FileName's form, without a path.
func (s *Service) Produce(file string, rq *Request, src Source) (ready bool, err error) {
	if !validName(file) {
		return false, errors.New("not a download's name: " + file)
	}
	if info, err := os.Stat(filepath.Join(s.Dir, file)); err == nil && info.Mode().IsRegular() {
		return true, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.queue == nil:
		return false, errors.New("the download service is not started")
	case s.pending[file]:
		return false, nil
	}
	select {
	case s.queue <- &job{rq: rq, src: src, name: file}:
		s.pending[file] = true
		return false, nil
	default:
		return false, errors.New("too many batch downloads are waiting: try again later")
	}
}

// validName reports whether name may be a download's file in Dir.
func validName(name string) bool {
	return name != "" && name == filepath.Base(name) && !strings.HasPrefix(name, ".")
}

// ServeRequest answers POST /download_request for requestor, who is
// authenticated (see Check): submit names the download's URL, and starts
// it (Produce), and the answer is "success: <its URL>" (text/plain), or
// EZID's error line with its status.
func (s *Service) ServeRequest(w http.ResponseWriter, r *http.Request, requestor string, acc Accounts, submit func(form url.Values, rq *Request) (string, error)) {
	if r.Method != http.MethodPost {
		statusLine(w, http.StatusMethodNotAllowed, "error: method not allowed")
		return
	}
	if mt, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";"); strings.TrimSpace(strings.ToLower(mt)) != "application/x-www-form-urlencoded" {
		statusLine(w, http.StatusBadRequest, "error: bad request - the body must be application/x-www-form-urlencoded")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	if err := r.ParseForm(); err != nil {
		statusLine(w, http.StatusBadRequest, "error: bad request - "+oneLine(err.Error()))
		return
	}
	rq, err := Check(r.PostForm, requestor, acc)
	link := ""
	if err == nil {
		link, err = submit(r.PostForm, rq)
	}
	var bad *BadRequest
	switch {
	case errors.As(err, &bad):
		statusLine(w, http.StatusBadRequest, "error: "+bad.Error())
	case errors.Is(err, ErrForbidden):
		statusLine(w, http.StatusForbidden, "error: forbidden")
	case err != nil:
		s.Logger.Error("batch download request", zap.Error(err))
		statusLine(w, http.StatusServiceUnavailable, "error: "+oneLine(err.Error()))
	default:
		statusLine(w, http.StatusOK, "success: "+link)
	}
}

// ServeFile answers GET /download/<name>: the download once it is
// complete, 404 before (EZID's answer to a client that polls) and for a
// name it never gave or has removed.
func (s *Service) ServeFile(w http.ResponseWriter, r *http.Request, name string) {
	if !validName(name) {
		http.NotFound(w, r)
		return
	}
	f, err := os.Open(filepath.Join(s.Dir, name))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		http.NotFound(w, r)
		return
	}
	ctype := "application/gzip"
	if strings.HasSuffix(name, ".zip") {
		ctype = "application/zip"
	}
	w.Header().Set("Content-Type", ctype)
	http.ServeContent(w, r, name, info.ModTime(), f)
}

// statusLine writes an EZID answer of one status line.
func statusLine(w http.ResponseWriter, status int, line string) {
	w.Header().Set("Content-Type", "text/plain; charset=UTF-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write([]byte(line))
}
