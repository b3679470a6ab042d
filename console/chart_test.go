package console

import (
	"strconv"
	"testing"

	"github.com/caddy-ark/caddy-ark/stats"
)

func TestDayChartScalesTheBarsToTheBusiestDay(t *testing.T) {
	r := &stats.Report{
		Total:    130,
		Outcomes: map[string]uint64{"redirect": 100, "not_found": 30},
		Days: []stats.DayCount{
			{Day: "2026-11-01", Total: 0},
			{Day: "2026-11-02", Total: 40, Outcomes: map[string]uint64{"redirect": 30, "not_found": 10}},
			{Day: "2026-11-03", Total: 90, Outcomes: map[string]uint64{"redirect": 70, "not_found": 20}},
		},
	}
	c := newDayChart(r)
	if c.Total != 130 || c.NotFound != 30 || len(c.Bars) != 3 {
		t.Fatalf("chart of %d requests, %d not found, %d bars", c.Total, c.NotFound, len(c.Bars))
	}
	// The busiest day, 90, is under the top of the axis, 200 (ticks 0,
	// 50, 100, 150, 200).
	var labels []string
	for _, tick := range c.Ticks {
		labels = append(labels, tick.Label)
	}
	if got := labels; len(got) != 5 || got[0] != "0" || got[4] != "200" || got[2] != "100" {
		t.Errorf("ticks %q, want 0 … 200", got)
	}
	plot := float64(c.Bottom - chartTop)
	for i, want := range []struct{ found, not float64 }{{0, 0}, {30, 10}, {70, 20}} {
		b := c.Bars[i]
		if h := parse(t, b.H); !near(h, want.found*plot/200) {
			t.Errorf("day %d: found bar %.1f high, want %.1f", i, h, want.found*plot/200)
		}
		if h := parse(t, b.NH); !near(h, want.not*plot/200) {
			t.Errorf("day %d: not-found bar %.1f high, want %.1f", i, h, want.not*plot/200)
		}
		// The not-found part sits on top of the found part.
		if !near(parse(t, b.NY)+parse(t, b.NH), parse(t, b.Y)) || !near(parse(t, b.Y)+parse(t, b.H), float64(c.Bottom)) {
			t.Errorf("day %d: bars not stacked on the axis: %+v", i, b)
		}
	}
	if c.Bars[2].Title != "2026-11-03: 90 requests, 20 not found" {
		t.Errorf("title %q", c.Bars[2].Title)
	}
}

func TestNiceCeiling(t *testing.T) {
	for n, want := range map[uint64]uint64{0: 4, 3: 4, 4: 4, 5: 8, 9: 20, 21: 40, 81: 200, 1999: 2000, 2001: 4000} {
		if got := niceCeiling(n); got != want {
			t.Errorf("niceCeiling(%d) = %d, want %d", n, got, want)
		}
	}
}

func parse(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// near reports whether a and b are within the rounding of num.
func near(a, b float64) bool { return a-b < 0.11 && b-a < 0.11 }
