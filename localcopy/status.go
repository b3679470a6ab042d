package localcopy

import (
	"os"
	"path/filepath"
	"time"
)

// Status is how current a copy is, as the readiness check and the
// metrics report it.
type Status struct {
	// "opening" while the copy on disk is checked and brought up to date
	// after a start, "building" while a copy is built and until it is
	// caught up once (lookups go to the store in both), then "serving".
	State string `json:"state"`

	// The sequence number of the last history record applied.
	Seq uint64 `json:"seq"`

	// Seconds since the copy last held every change the store had
	// committed: the start of its last complete read of the history (for
	// a copy opened from disk and not caught up since, its last write).
	// It grows while the store cannot be read.
	LagSeconds float64 `json:"lag_seconds"`

	// History records the copy has read and not yet applied, at least:
	// 0 once a read reaches the end of the history.
	BehindChanges uint64 `json:"behind_changes"`

	// Whether the last read of the history succeeded.
	Following bool `json:"following"`
}

// Status returns the copy's status now.
func (c *Copy) Status() Status {
	st := Status{State: "building", Seq: c.Seq(), BehindChanges: c.behind.Load(), Following: c.lastErr.Load() == nil}
	select {
	case <-c.opened:
	default:
		if !c.building.Load() {
			st.State = "opening"
		}
	}
	if c.serving.Load() {
		st.State = "serving"
	}
	if at := c.currentAt.Load(); at > 0 {
		st.LagSeconds = time.Since(time.Unix(0, at)).Seconds()
	}
	return st
}

// lastWritten returns when the copy's files in dir were last written,
// the zero time when it has none.
func lastWritten(dir string) time.Time {
	var t time.Time
	for _, name := range []string{baseName, journalName} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.ModTime().After(t) {
			t = fi.ModTime()
		}
	}
	return t
}
