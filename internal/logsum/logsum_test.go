package logsum

import (
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

func TestOneLinePerKindAndIntervalThenASummary(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		core, logs := observer.New(zapcore.DebugLevel)
		l := New(zap.New(core), 100*time.Millisecond)
		for i := range 1000 {
			l.Log("missing", zapcore.WarnLevel, "missing target", zap.Int("i", i))
			l.Log("store", zapcore.ErrorLevel, "store down", zap.Int("i", i))
		}
		if n := logs.Len(); n != 2 {
			t.Fatalf("%d lines at once, want 2 (one per kind)", n)
		}
		time.Sleep(150 * time.Millisecond)
		if n := logs.Len(); n != 4 {
			t.Fatalf("%d lines after the interval, want 4 (a summary per kind)", n)
		}
		for _, e := range logs.FilterMessage("missing target").All()[1:] {
			f := e.ContextMap()
			if f["repeated"] != int64(999) || f["i"] != int64(999) || f["since"] == nil || e.Level != zapcore.WarnLevel {
				t.Errorf("summary %v at %v; want the last message with repeated 999", f, e.Level)
			}
		}
		// The next one within the interval after the summary is held too;
		// Close writes it.
		l.Log("missing", zapcore.WarnLevel, "missing target", zap.Int("i", 1000))
		if n := logs.Len(); n != 4 {
			t.Fatalf("%d lines, want 4: written within an interval of the summary", n)
		}
		l.Close()
		if n := logs.Len(); n != 5 {
			t.Fatalf("%d lines after Close, want 5", n)
		}
		l.Log("missing", zapcore.WarnLevel, "missing target")
		if n := logs.Len(); n != 6 {
			t.Fatalf("%d lines, want 6: written at once after Close", n)
		}
	})
}

func TestAQuietKindIsWrittenAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		core, logs := observer.New(zapcore.InfoLevel)
		l := New(zap.New(core), 20*time.Millisecond)
		l.Log("k", zapcore.ErrorLevel, "one")
		time.Sleep(30 * time.Millisecond)
		l.Log("k", zapcore.ErrorLevel, "two")
		l.Log("k", zapcore.DebugLevel, "not enabled: neither written nor counted")
		if n := logs.Len(); n != 2 {
			t.Fatalf("%d lines, want 2", n)
		}
		time.Sleep(30 * time.Millisecond)
		if n := logs.Len(); n != 2 {
			t.Fatalf("%d lines, want 2: nothing was held", n)
		}
	})
}
