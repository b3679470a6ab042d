// Package logsum keeps logs readable when one thing goes wrong for every
// request: a message of a kind is written once, and the ones of the same
// kind that follow within an interval are counted instead, then written
// as one summary line (the last of them, with "repeated": how many it
// stands for) when the interval ends. At most one line per kind and interval is written,
// however many requests fail. Counting every occurrence is the metrics'
// job. It imports nothing from this module.
package logsum

import (
	"sync"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Logger writes through a zap.Logger, a line per kind and interval. Its
// methods are safe for concurrent use.
type Logger struct {
	log   *zap.Logger
	every time.Duration

	mu     sync.Mutex
	kinds  map[string]*kind
	closed bool
}

// kind is what a Logger knows of one kind of message.
type kind struct {
	written time.Time // when a line of the kind was last written
	held    int       // messages counted since, not written
	last    entry     // the last of them
	flush   *time.Timer
}

// entry is one message as Log got it.
type entry struct {
	level  zapcore.Level
	msg    string
	fields []zap.Field
}

// New returns a Logger that writes to log at most one line of a kind
// every interval.
func New(log *zap.Logger, every time.Duration) *Logger {
	return &Logger{log: log, every: every, kinds: map[string]*kind{}}
}

// Log writes msg with fields at level, unless a line of kind was written
// less than the interval ago: then the message is counted, and the last
// one counted is written when the interval ends, with "repeated" (how
// many messages the line stands for, itself included) and "since" (when
// the line before was written).
// Kinds must come from a fixed set (a call site, a configured name), never
// from request data, since the Logger keeps one record per kind.
func (l *Logger) Log(kindName string, level zapcore.Level, msg string, fields ...zap.Field) {
	if !l.log.Core().Enabled(level) {
		return
	}
	now := time.Now()
	l.mu.Lock()
	k := l.kinds[kindName]
	if k == nil {
		k = &kind{}
		l.kinds[kindName] = k
	}
	if l.closed || (k.held == 0 && now.Sub(k.written) >= l.every) {
		k.written = now
		l.mu.Unlock()
		l.log.Log(level, msg, fields...)
		return
	}
	k.held++
	k.last = entry{level: level, msg: msg, fields: fields}
	if k.flush == nil {
		k.flush = time.AfterFunc(k.written.Add(l.every).Sub(now), func() { l.flush(k) })
	}
	l.mu.Unlock()
}

// flush writes the summary of the messages k holds, if any.
func (l *Logger) flush(k *kind) {
	l.mu.Lock()
	held, last, since := k.held, k.last, k.written
	k.held, k.flush = 0, nil
	if held > 0 {
		k.written = time.Now()
	}
	l.mu.Unlock()
	if held > 0 {
		l.log.Log(last.level, last.msg, append(last.fields[:len(last.fields):len(last.fields)],
			zap.Int("repeated", held), zap.Time("since", since))...)
	}
}

// Close writes the summaries held now; later messages are written as
// they come. It may be called more than once.
func (l *Logger) Close() {
	l.mu.Lock()
	l.closed = true
	var pending []*kind
	for _, k := range l.kinds {
		if k.flush != nil && k.flush.Stop() {
			pending = append(pending, k)
		}
	}
	l.mu.Unlock()
	for _, k := range pending {
		l.flush(k)
	}
}
