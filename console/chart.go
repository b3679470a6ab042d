package console

import (
	"fmt"
	"math"
	"strconv"

	"github.com/caddy-ark/caddy-ark/stats"
)

// The size of the chart of requests per day, in SVG units; it is drawn
// to the width of the page.
const (
	chartWidth  = 720
	chartHeight = 240
	chartLeft   = 56 // room for the counts of the axis
	chartBottom = 28 // room for the days
	chartTop    = 10
)

// notFoundOutcome is the outcome of the requests that the chart shows
// apart: names that resolve to nothing.
const notFoundOutcome = "not_found"

// dayChart is the chart of a report's requests per day: a bar a day, the
// requests that found something solid and those that found nothing
// hatched on top, so that it reads without colour.
type dayChart struct {
	Width, Height int
	Left, Bottom  int // the axes' corner
	Right         int
	Bars          []dayBar
	Ticks         []chartTick
	Days          []chartTick // the days written under the axis
	Total         uint64
	NotFound      uint64
}

// dayBar is one day's bar.
type dayBar struct {
	X, W       string
	Y, H       string // the requests that found something
	NY, NH     string // those that did not
	Title      string
	Found, Not uint64
}

// chartTick is a value written on an axis, at a position.
type chartTick struct {
	At    string
	Label string
}

// newDayChart lays out the chart of r.
func newDayChart(r *stats.Report) *dayChart {
	c := &dayChart{Width: chartWidth, Height: chartHeight, Left: chartLeft, Bottom: chartHeight - chartBottom, Right: chartWidth - 4, Total: r.Total, NotFound: r.Outcomes[notFoundOutcome]}
	var most uint64
	for _, d := range r.Days {
		most = max(most, d.Total)
	}
	top := niceCeiling(most)
	plotH := float64(c.Bottom - chartTop)
	scale := plotH / float64(top)
	for i := 0; i <= 4; i++ {
		v := top * uint64(i) / 4
		c.Ticks = append(c.Ticks, chartTick{At: num(float64(c.Bottom) - float64(v)*scale), Label: strconv.FormatUint(v, 10)})
	}
	n := max(len(r.Days), 1)
	slot := float64(c.Right-c.Left) / float64(n)
	gap := min(slot*0.2, 4)
	every := max(n/6, 1) // about six days written under the axis
	for i, d := range r.Days {
		notFound := d.Outcomes[notFoundOutcome]
		found := d.Total - notFound
		x := float64(c.Left) + float64(i)*slot + gap/2
		fh, nh := float64(found)*scale, float64(notFound)*scale
		b := dayBar{
			X: num(x), W: num(slot - gap),
			Y: num(float64(c.Bottom) - fh), H: num(fh),
			NY: num(float64(c.Bottom) - fh - nh), NH: num(nh),
			Found: found, Not: notFound,
			Title: fmt.Sprintf("%s: %d requests, %d not found", d.Day, d.Total, notFound),
		}
		c.Bars = append(c.Bars, b)
		if i%every == 0 {
			c.Days = append(c.Days, chartTick{At: num(x + (slot-gap)/2), Label: d.Day[5:]})
		}
	}
	return c
}

// niceCeiling returns the smallest of 4, 8, 20, 40, 80, 200 … (a number
// the four ticks divide into round ones) that is at least n.
func niceCeiling(n uint64) uint64 {
	for base := uint64(1); base <= math.MaxUint64/100; base *= 10 {
		for _, m := range []uint64{4, 8, 20} {
			if n <= m*base {
				return m * base
			}
		}
	}
	return n
}

// num writes a coordinate, to a tenth.
func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
