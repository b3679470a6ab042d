package docs

import (
	"testing"
	"time"
)

// The reports of docs/targets.md are real runs against the page's API
// site, once its checker has checked the targets: each command is run
// again until it prints what the sample shows, for at most a minute.
func TestDocsCheckedTargetsTranscriptsAreRealRuns(t *testing.T) {
	replayTranscripts(t, checkedTranscriptMark, time.Minute)
}
