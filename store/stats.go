package store

import "context"

// StatsStore is a store that also keeps resolution statistics: counts that
// the stats package aggregates in memory and adds at most once a minute.
// It is optional (the handler says so at load when its store lacks it);
// both backends implement it. Statistics are kept by day, in UTC, and hold
// no client addresses.
//
// Counts only ever grow by AddStats, so several nodes sharing a store add
// theirs to the same rows. A dump (see Dumper) carries them, a row an item
// (StatRow), and a load keeps their counts exactly.
type StatsStore interface {
	// AddStats adds the counts of s to those kept, in one transaction: a
	// row (day and shoulder and outcome, or day and list and identifier)
	// that is kept already grows by its count, a new one is kept. Then,
	// for each day whose Top or NotFound names s holds, only the keep.Top
	// (keep.NotFound) most counted names of that day's list are kept, ties
	// going to the smaller identifier, and the others are dropped.
	AddStats(ctx context.Context, s *Stats, keep StatsKeep) error

	// ReadStats returns the counts kept for the days from to to, both
	// "YYYY-MM-DD" and inclusive: Resolutions ordered by day, shoulder and
	// outcome; Top and NotFound by day, then count (highest first), then
	// identifier.
	ReadStats(ctx context.Context, from, to string) (*Stats, error)

	// DropStats drops the counts of the days before day ("YYYY-MM-DD").
	DropStats(ctx context.Context, before string) error
}

// Stats is a set of resolution statistics: what AddStats adds and what
// ReadStats returns.
type Stats struct {
	// How many requests each shoulder had, per day and outcome.
	Resolutions []ResolutionCount `json:"resolutions"`

	// The identifiers requested most, per day.
	Top []NameCount `json:"top"`

	// The names under the site's own NAANs requested most that resolved
	// to nothing, per day.
	NotFound []NameCount `json:"not_found"`
}

// ResolutionCount is how many requests for a shoulder's identifiers had
// one outcome on one day.
type ResolutionCount struct {
	// The day, "YYYY-MM-DD" in UTC.
	Day string `json:"day"`

	// The shoulder as an identifier prefix ("ark:12345/x5"), a NAAN
	// ("ark:12345"), a URN namespace ("urn:isbn"), or "" for requests
	// that name none of this site's: invalid, foreign, unknown URNs.
	Shoulder string `json:"shoulder"`

	// The outcome's name, as the metrics show it ("redirect").
	Outcome string `json:"outcome"`

	Count uint64 `json:"count"`
}

// NameCount is how many requests one identifier had on one day.
type NameCount struct {
	// The day, "YYYY-MM-DD" in UTC.
	Day string `json:"day"`

	// The normalized identifier.
	ID string `json:"id"`

	Count uint64 `json:"count"`
}

// StatsKeep is how many names of a day AddStats keeps in each list.
type StatsKeep struct {
	Top      int
	NotFound int
}
