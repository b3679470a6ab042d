//go:build unix

package ark

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time this process has used, in user and
// system mode, garbage collection included.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
