// Package pool shares loaded tables across Caddy configs and handlers,
// watches their files and swaps a new version in, and keeps compiled
// tables resident in memory when asked: the tables' life in a running
// server. Its pool is one per process (caddy.UsagePool), so a config
// reload that keeps a table shares it instead of reading it again.
package pool

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/metrics"
	"github.com/caddy-ark/caddy-ark/internal/osfile"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
)

// tables holds the loaded tables of all configs by identity: the versions
// of their files and their inline entries. Caddy provisions a new config
// before it cleans up the old one, so a config reload that keeps a table
// shares it instead of reading and indexing it again; so do handlers with
// the same tables. Tables are never changed, only replaced.
var tables = caddy.NewUsagePool()

// Files are where a handler's table comes from and how it is held.
type Files struct {
	Paths    []string      // the table files
	Entries  []table.Entry // the handler's own entries, merged with them
	Verify   bool          // check a compiled table's whole checksum when it is opened (verify_tables)
	Resident bool          // keep a compiled table's pages locked in memory (resident_tables)
	Logger   *zap.Logger   // the handler's: loads, swaps and resident tables are logged there
}

// Live is what a handler keeps about the table it serves, besides the
// resolver: the table's place in the pool, and the watcher. Once the
// watcher runs, only it touches key and stamps, under mu, until
// StopWatching has stopped it.
type Live struct {
	mu     sync.Mutex    // held by the watcher to swap a table in, and to stop it
	files  Files         // set by Open
	inline string        // hash of the handler's own entries, part of every key
	key    string        // pool key of the table in use, "" once released
	stamps []fileStamp   // the versions of the files it was read from
	stop   chan struct{} // closed to stop the watcher; nil when none runs
}

// warmer is a table whose index is read from disk as lookups touch it (a
// compiled table), and that can read it into the page cache ahead of
// them, so that the first seconds after a start are not spent waiting on
// the disk, or read all of it and keep it there (resident_tables).
type warmer interface {
	Warm(stop <-chan struct{})
	Lock(stop <-chan struct{}) (int, error)
}

// pooledTable is a table in the pool.
type pooledTable struct {
	t table.Table
	// stop is closed once the pool lets go of t: it stops warming it.
	stop chan struct{}
}

// Destruct implements caddy.Destructor: it stops warming the table. A
// table in the heap holds nothing but memory; a compiled table's mapping
// is released once the table is garbage, when no request still reads it
// (see table.OpenCompiled).
func (p pooledTable) Destruct() error {
	close(p.stop)
	return nil
}

// fileStamp tells versions of a table file apart without reading it.
type fileStamp struct {
	size     int64
	modTime  int64  // Unix nanoseconds
	dev, ino uint64 // 0 where the system does not say
	err      string // why the file could not be stat'ed, "" if it could
}

// statFiles stamps the files at paths.
func statFiles(paths []string) []fileStamp {
	stamps := make([]fileStamp, len(paths))
	for i, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			stamps[i].err = err.Error()
			continue
		}
		dev, ino := osfile.ID(fi)
		stamps[i] = fileStamp{size: fi.Size(), modTime: fi.ModTime().UnixNano(), dev: dev, ino: ino}
	}
	return stamps
}

// changedInPlace reports whether a file of now is the file (device and
// inode) it was at before, with another size or time.
func changedInPlace(now, before []fileStamp) bool {
	for i := range min(len(now), len(before)) {
		n, b := now[i], before[i]
		if n.ino != 0 && n.dev == b.dev && n.ino == b.ino && n != b {
			return true
		}
	}
	return false
}

// tableKey names the table of the files at paths in the versions stamps,
// followed by the entries whose hash is inline.
func tableKey(paths []string, stamps []fileStamp, inline string) string {
	var b strings.Builder
	for i, p := range paths {
		s := stamps[i]
		b.WriteString(strconv.Quote(p))
		for _, n := range []uint64{uint64(s.size), uint64(s.modTime), s.dev, s.ino} {
			b.WriteByte(' ')
			b.WriteString(strconv.FormatUint(n, 10))
		}
		b.WriteString(" " + strconv.Quote(s.err) + "\n")
	}
	b.WriteString(inline)
	return b.String()
}

// entriesHash identifies a handler's own entries in table keys. Where an
// entry was written does not count: a Caddyfile edit that only moves a map
// keeps the table.
func entriesHash(entries []table.Entry) string {
	entries = slices.Clone(entries)
	for i := range entries {
		entries[i].Source = ""
	}
	data, _ := json.Marshal(entries) // strings, numbers and string maps: it cannot fail
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// errChanged is returned when a table file changed while it was being
// read: what was read may be neither version.
var errChanged = errors.New("a table file changed while it was being read; try again")

// Open gets the table of f for a config load, from the pool or by
// reading it, and notes what it is in l. A file that keeps changing
// while it is read fails the load after a few tries. Unless it fails,
// Release must give the table back once the handler no longer serves it.
func (l *Live) Open(f Files) (table.Table, error) {
	l.files = f
	l.inline = entriesHash(f.Entries)
	if f.Resident {
		l.inline += " resident" // a table kept in memory is not the same as one that is not
	}
	for try := 1; ; try++ {
		stamps := statFiles(f.Paths)
		key := tableKey(f.Paths, stamps, l.inline)
		t, err := l.acquire(key, stamps, metrics.TriggerConfig)
		if errors.Is(err, errChanged) && try < 3 {
			continue
		}
		if err != nil {
			return nil, err
		}
		l.key, l.stamps = key, stamps
		return t, nil
	}
}

// acquire returns the table of key, reading the files (expected at
// stamps) when the pool does not hold it yet. Unless it fails, the caller
// must release key with tables.Delete once it no longer uses the table.
func (l *Live) acquire(key string, stamps []fileStamp, trigger int) (table.Table, error) {
	v, _, err := tables.LoadOrNew(key, func() (caddy.Destructor, error) {
		t, err := l.read(stamps, trigger)
		if err != nil {
			return nil, err
		}
		p := pooledTable{t: t, stop: make(chan struct{})}
		if w, ok := t.(warmer); ok {
			if l.files.Resident {
				go l.keepResident(w, p.stop)
			} else {
				go w.Warm(p.stop)
			}
		}
		return p, nil
	})
	if err != nil {
		// The pool dropped the key: there is nothing to release.
		return nil, err
	}
	return v.(pooledTable).t, nil
}

// read reads and indexes the handler's tables, which are expected at
// stamps, counting and logging the load. A compiled file that the watcher
// finds changed in place (the inode it serves, with another size or time)
// has its whole checksum checked even without verify_tables: it was
// written over while mapped, and a damaged index would hide identifiers.
func (l *Live) read(stamps []fileStamp, trigger int) (table.Table, error) {
	f := l.files
	start := time.Now()
	verify := f.Verify || (trigger == metrics.TriggerWatch && changedInPlace(stamps, l.stamps))
	t, err := table.Open(f.Paths, f.Entries, verify)
	if !slices.Equal(statFiles(f.Paths), stamps) {
		return nil, errChanged // not a result: the file is read again once it settles
	}
	if err != nil {
		metrics.Counters.LoadsError[trigger].Inc()
		if trigger == metrics.TriggerWatch {
			f.Logger.Error("table not reloaded: the running table keeps serving", loadErrorFields(err)...)
		}
		return nil, err
	}
	metrics.Counters.LoadsOK[trigger].Inc()
	f.Logger.Info("table loaded",
		zap.String("trigger", metrics.TriggerNames[trigger]),
		zap.Strings("files", f.Paths),
		zap.Int("entries", t.Len()),
		zap.Duration("duration", time.Since(start)))
	return t, nil
}

// loadErrorFields describes a failed load for the log: the file, the line
// and entry when known, and the reason.
func loadErrorFields(err error) []zap.Field {
	var le *table.LoadError
	var pe *fs.PathError
	switch {
	case errors.As(err, &le):
		file := le.File
		switch {
		case file == "" && le.Source != "":
			file = le.Source
		case file == "":
			file = "entries"
		}
		fields := []zap.Field{zap.String("file", file)}
		if le.Line > 0 {
			fields = append(fields, zap.Int("line", le.Line))
		}
		if le.Entry >= 0 {
			fields = append(fields, zap.Int("entry", le.Entry))
		}
		return append(fields, zap.String("reason", le.Err.Error()))
	case errors.As(err, &pe):
		return []zap.Field{zap.String("file", pe.Path), zap.String("reason", pe.Err.Error())}
	}
	return []zap.Field{zap.String("reason", err.Error())}
}

// Release gives the handler's table back to the pool, and reports
// whether that was its last use (see ReturnMemory). It may be called more
// than once.
func (l *Live) Release() (last bool) {
	if l.key != "" {
		last, _ = tables.Delete(l.key)
		l.key = ""
	}
	return last
}

// Datestamp runs read (which reads what the watcher swaps, such as the
// handler's resolver) under the lock the watcher swaps tables under, and
// returns the latest modification time of the files the table in use was
// read from; zero when there are none.
func (l *Live) Datestamp(read func()) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	read()
	var stamp time.Time
	for _, st := range l.stamps {
		if t := time.Unix(0, st.modTime); st.err == "" && t.After(stamp) {
			stamp = t
		}
	}
	return stamp
}

// Stamp digests the versions (size, modification time, inode) of the
// table files at paths: a changed file changes it.
func Stamp(paths []string) string {
	digest := fnv.New64a()
	_, _ = io.WriteString(digest, tableKey(paths, statFiles(paths), ""))
	return strconv.FormatUint(digest.Sum64(), 16)
}

// ReturnMemory collects a table that has just become garbage and gives its
// memory back to the system. Without it, a replaced table stays resident
// for minutes: the new table was read while the old one was still in use,
// so the heap's next collection is due only at about twice the size of
// both, which an idle server does not reach, and Go returns freed memory
// to the system only gradually. One forced collection per table
// replacement costs far less than reading the table did (BENCHMARKS.md,
// "Memory across reloads and swaps").
func ReturnMemory() {
	debug.FreeOSMemory()
}
