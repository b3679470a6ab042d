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
// time, to Dir, where it appears under its name when complete. Each
// request brings its Source (the store, as its requestor may read it) and
// Accounts, so that one Service may serve the requests of several sites
// and configurations.
type Service struct {
	// Dir is where the downloads are written and kept (Retention).
	Dir string
	// Logger says when a download is ready (with the addresses of its
	// notify parameter) or failed.
	Logger *zap.Logger

	mu    sync.Mutex
	queue chan *job
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
	if err != nil {
		s.Logger.Error("batch download failed", zap.String("file", j.name), zap.Error(err))
		return
	}
	s.Logger.Info("batch download ready", zap.String("file", j.name), zap.Int("records", n),
		zap.Duration("took", time.Since(start)), zap.Strings("notify", j.rq.Notify))
}

// Submit queues the download that form asks for requestor, of the records
// of src, and returns the name of its file. It refuses a bad request with
// a *BadRequest, an owner or group the requestor may not download (acc)
// with ErrForbidden.
func (s *Service) Submit(form url.Values, requestor string, acc Accounts, src Source) (string, error) {
	rq, err := ParseRequest(form)
	if err != nil {
		return "", err
	}
	for _, o := range rq.Owners {
		if !acc.Known(o, false) {
			return "", &BadRequest{"parameter 'owner': no such user"}
		}
	}
	for _, g := range rq.OwnerGroups {
		if !acc.Known(g, true) {
			return "", &BadRequest{"parameter 'ownergroup': no such group"}
		}
	}
	for _, o := range rq.Owners {
		if !acc.MayDownload(requestor, o, false) {
			return "", ErrForbidden
		}
	}
	for _, g := range rq.OwnerGroups {
		if !acc.MayDownload(requestor, g, true) {
			return "", ErrForbidden
		}
	}
	rq.Select.Owners, rq.Select.OwnerGroups = rq.Owners, rq.OwnerGroups
	if len(rq.Owners)+len(rq.OwnerGroups) == 0 {
		rq.Select.Owners = []string{requestor}
	}
	j := &job{rq: rq, src: src, name: FileName(newName(), rq.Format, rq.Compression)}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.queue == nil {
		return "", errors.New("the download service is not started")
	}
	select {
	case s.queue <- j:
		return j.name, nil
	default:
		return "", errors.New("too many batch downloads are waiting: try again later")
	}
}

// ServeRequest answers POST /download_request for requestor, who is
// authenticated, of the records of src (see Submit): "success:
// <base>/download/<file>" (text/plain), or EZID's error line with its
// status. base is the URL of the EZID API (https://ezid.example.org, or
// the path it is served under).
func (s *Service) ServeRequest(w http.ResponseWriter, r *http.Request, requestor, base string, acc Accounts, src Source) {
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
	name, err := s.Submit(r.PostForm, requestor, acc, src)
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
		statusLine(w, http.StatusOK, "success: "+strings.TrimSuffix(base, "/")+"/download/"+name)
	}
}

// ServeFile answers GET /download/<name>: the download once it is
// complete, 404 before (EZID's answer to a client that polls) and for a
// name it never gave or has removed.
func (s *Service) ServeFile(w http.ResponseWriter, r *http.Request, name string) {
	if name == "" || name != filepath.Base(name) || strings.HasPrefix(name, ".") {
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
