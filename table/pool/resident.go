package pool

import (
	"time"

	"github.com/dustin/go-humanize"
	"go.uber.org/zap"
)

// keepResident reads the compiled table t into memory and locks it there
// (resident_tables), logging how it went: a refusal is a warning, not an
// error, since the table serves on from the page cache. It stops early
// once stop is closed (the table replaced).
func (l *Live) keepResident(t warmer, stop <-chan struct{}) {
	start := time.Now()
	n, err := t.Lock(stop)
	if err != nil {
		l.files.Logger.Warn("table not kept in memory: it serves from the page cache, as without resident_tables",
			zap.Strings("files", l.files.Paths), zap.Error(err))
		return
	}
	select {
	case <-stop:
		return
	default:
	}
	l.files.Logger.Info("table kept in memory",
		zap.Strings("files", l.files.Paths),
		zap.String("size", humanize.IBytes(uint64(n))),
		zap.Duration("duration", time.Since(start)))
}
