package store

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
)

// StatsNotDumpedError refuses a dump of version DumpVersionNoStats of a
// store that holds statistics, which that version cannot hold: leaving
// them out takes the operator's word (WriteDumpNoStats's withoutStats).
type StatsNotDumpedError struct {
	// How many statistics rows the store holds; 0 when they were written
	// while the dump was under way (a store that other nodes write).
	Rows int
}

// Error says why the dump was refused.
func (e *StatsNotDumpedError) Error() string {
	if e.Rows == 0 {
		return fmt.Sprintf("statistics rows were written to the store during the dump, which a dump of version %d cannot hold: the dump stops without its end line", DumpVersionNoStats)
	}
	return fmt.Sprintf("the store holds %s, which a dump of version %d cannot hold", plural(e.Rows, "statistics row"), DumpVersionNoStats)
}

// DumpCountsNoStats is how many of each item a dump of version
// DumpVersionNoStats holds, as its end line counts them: DumpCounts
// without the statistics.
type DumpCountsNoStats struct {
	Bindings int `json:"bindings"`
	Changes  int `json:"changes"`
	Counters int `json:"counters"`
}

// String says the counts, as store dump prints them.
func (c DumpCountsNoStats) String() string {
	return plural(c.Bindings, "binding") + ", " + plural(c.Changes, "history record") + ", " + plural(c.Counters, "counter")
}

// WriteDumpNoStats writes d's dump to w as version DumpVersionNoStats,
// the version that caddy-ark read before statistics were dumped, byte for
// byte as it wrote it: WriteDump's lines without the statistics rows, and
// an end line without their count. Unless withoutStats, a store holding
// statistics is refused with a StatsNotDumpedError before anything is
// written (and during the dump, should a row appear since); with it, the
// rows are left out, and leftOut says how many. The stored API keys are
// always left out: a store loaded from it has only the configuration's.
// written counts what the dump holds, as its end line does.
func WriteDumpNoStats(ctx context.Context, d Dumper, w io.Writer, withoutStats bool) (written DumpCountsNoStats, leftOut int, err error) {
	if !withoutStats {
		n, err := countStats(ctx, d)
		if err != nil {
			return written, 0, err
		}
		if n > 0 {
			return written, 0, &StatsNotDumpedError{Rows: n}
		}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(dumpLine{Format: DumpFormat, Version: DumpVersionNoStats}); err != nil {
		return written, 0, err
	}
	var counts DumpCounts
	err = d.Dump(ctx, func(it *Item) error {
		if it.Key != nil {
			return nil // version 1 has no keys
		}
		if it.Stat != nil {
			if !withoutStats {
				return &StatsNotDumpedError{}
			}
			leftOut++
			return nil
		}
		counts.add(it)
		return enc.Encode(dumpLine{Item: *it})
	})
	written = counts.withoutStats()
	if err != nil {
		return written, leftOut, err
	}
	end := struct {
		End DumpCountsNoStats `json:"end"`
	}{written}
	if err := enc.Encode(end); err != nil {
		return written, leftOut, err
	}
	return written, leftOut, bw.Flush()
}

// countStats returns how many statistics rows d holds: every day's, as a
// dump would carry them; none when d keeps no statistics.
func countStats(ctx context.Context, d Dumper) (int, error) {
	s, ok := d.(StatsStore)
	if !ok {
		return 0, nil
	}
	all, err := s.ReadStats(ctx, "0001-01-01", "9999-12-31")
	if err != nil {
		return 0, fmt.Errorf("counting the statistics: %w", err)
	}
	return len(all.Resolutions) + len(all.Top) + len(all.NotFound), nil
}
