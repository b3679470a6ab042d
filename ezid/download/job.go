package download

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/ezid/anvl"
)

// Source calls fn with the records a download may hold, until fn returns
// an error, which it returns; a download's constraints are applied to
// what it gives. It streams: a download of any size holds one record at
// a time.
type Source func(ctx context.Context, fn func(*anvl.Record) error) error

// Retention is how long a download's file is kept: EZID keeps them a
// week.
const Retention = 7 * 24 * time.Hour

// job is a download to write: the request, its records, and its file's
// name.
type job struct {
	rq   *Request
	src  Source
	name string // the file's name in the directory
}

// write writes the download of j to dir: to a file of its own, renamed to
// the download's name once complete, so that the name answers only a
// complete download. Memory does not grow with the download's size.
func (j *job) write(ctx context.Context, dir string, now time.Time) (n int, err error) {
	part, err := os.CreateTemp(dir, ".part-*")
	if err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			part.Close()
			os.Remove(part.Name())
		}
	}()
	inner := strings.TrimSuffix(strings.TrimSuffix(j.name, ".zip"), ".gz")
	if j.rq.Compression == CompressionZip {
		inner += "." + fileSuffixes[j.rq.Format]
	}
	cw, err := compress(part, j.rq.Compression, inner, now)
	if err != nil {
		return 0, err
	}
	rw, err := NewRecordWriter(j.rq.Format, cw, j.rq.Columns)
	if err != nil {
		return 0, err
	}
	err = j.src(ctx, func(r *anvl.Record) error {
		if !j.rq.Select.Selects(r) {
			return nil
		}
		if j.rq.ConvertTimestamps {
			r = convertTimestamps(r)
		}
		n++
		return rw.Write(r)
	})
	if err != nil {
		return 0, err
	}
	if err := errors.Join(rw.Close(), cw.close(), part.Sync(), part.Close()); err != nil {
		return 0, err
	}
	return n, os.Rename(part.Name(), filepath.Join(dir, j.name))
}

// convertTimestamps returns r with its _created and _updated in ISO 8601
// (2024-05-01T10:20:30Z), as the parameter convertTimestamps asks.
func convertTimestamps(r *anvl.Record) *anvl.Record {
	c := *r
	c.Elements = append([]anvl.Element(nil), r.Elements...)
	for i, e := range c.Elements {
		if e.Name == "_created" || e.Name == "_updated" {
			if t, ok := parseTime(e.Value); ok {
				c.Elements[i].Value = time.Unix(t, 0).UTC().Format("2006-01-02T15:04:05Z")
			}
		}
	}
	return &c
}

// removeExpired removes the downloads of dir older than Retention, and
// parts of downloads that were never completed (a stop while writing).
func removeExpired(dir string, now time.Time) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if now.Sub(info.ModTime()) > Retention || (strings.HasPrefix(e.Name(), ".part-") && now.Sub(info.ModTime()) > time.Hour) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, fmt.Errorf("removing an expired download: %w", err))
			}
		}
	}
	return errors.Join(errs...)
}
