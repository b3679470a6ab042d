package stats

import (
	"fmt"
	"time"

	"github.com/caddyserver/caddy/v2"
)

// Config is the configuration of a site's resolution statistics: the
// `stats` block of the ark directive.
type Config struct {
	// How often the counts are added to the store. Default and least 1m:
	// the store is written at most once a minute, never on the request
	// path. The counts not written yet are in every report, and are
	// written when the configuration is unloaded (a reload, a stop).
	FlushInterval caddy.Duration `json:"flush_interval,omitempty"`

	// How many of the most requested identifiers are kept for each day
	// and reported. Default 100, at most 10000.
	Top int `json:"top,omitempty"`

	// How many of the most requested names that resolve to nothing (under
	// the site's own NAANs) are kept for each day and reported: they are
	// what clients typed, so only the most frequent are kept. Default
	// 100, at most 10000.
	NotFound int `json:"not_found,omitempty"`

	// How long statistics are kept, in whole days ("400d"); the days
	// before are dropped. Default: 13 months. At least 1 day.
	Retention caddy.Duration `json:"retention,omitempty"`
}

// The defaults and bounds of Config.
const (
	defaultFlushInterval = time.Minute
	minFlushInterval     = time.Minute
	defaultTop           = 100
	defaultRetention     = 13 // months
	day                  = 24 * time.Hour
)

// Validate checks c's values.
func (c *Config) Validate() error {
	if c.FlushInterval != 0 && time.Duration(c.FlushInterval) < minFlushInterval {
		return fmt.Errorf("stats: flush_interval %v: must be at least %v: the store is written at most once a minute", time.Duration(c.FlushInterval), minFlushInterval)
	}
	if c.Top < 0 || c.Top > MaxTop {
		return fmt.Errorf("stats: top %d: must be between 1 and %d", c.Top, MaxTop)
	}
	if c.NotFound < 0 || c.NotFound > MaxTop {
		return fmt.Errorf("stats: not_found %d: must be between 1 and %d", c.NotFound, MaxTop)
	}
	if c.Retention != 0 && time.Duration(c.Retention) < day {
		return fmt.Errorf("stats: retention %v: must be at least one day (24h, or 1d)", time.Duration(c.Retention))
	}
	return nil
}

func (c *Config) flushInterval() time.Duration {
	if c.FlushInterval == 0 {
		return defaultFlushInterval
	}
	return time.Duration(c.FlushInterval)
}

func (c *Config) top() int {
	if c.Top == 0 {
		return defaultTop
	}
	return c.Top
}

func (c *Config) notFound() int {
	if c.NotFound == 0 {
		return defaultTop
	}
	return c.NotFound
}

// oldestDay returns the first day kept on the day of now: the days
// before it are dropped.
func (c *Config) oldestDay(now time.Time) string {
	now = now.UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	if c.Retention == 0 {
		return today.AddDate(0, -defaultRetention, 0).Format(dayLayout)
	}
	days := int((time.Duration(c.Retention) + day - 1) / day)
	return today.AddDate(0, 0, -days).Format(dayLayout)
}

// MaxTop is the most names that top and not_found may keep.
const MaxTop = 10000

// dayLayout is how days are written: "2006-01-02", in UTC.
const dayLayout = time.DateOnly
