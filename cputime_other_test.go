//go:build !unix

package ark

import "time"

// processCPU is not known here: benchmarks report no CPU time.
func processCPU() (time.Duration, bool) { return 0, false }
