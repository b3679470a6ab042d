package targets

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config is the targets_check block of the ark handler: how the site's
// targets are checked.
type Config struct {
	// How often each target is checked again. The checks are spread
	// evenly over it, new targets included, so that a site's first pass
	// is no burst. Default 720h (30 days); at least 1s.
	Interval Duration `json:"interval,omitempty"`

	// The least time between two requests to one origin (scheme, host
	// and port), from the end of one to the start of the next: an origin
	// gets one request at a time, at least this far apart. So does each
	// server address (IP and port) the origins' names resolve to.
	// Default 1s.
	HostInterval Duration `json:"host_interval,omitempty"`

	// How long one request may take, connecting included, before the
	// check fails with "timeout"; in-place checks too. Default 30s.
	Timeout Duration `json:"timeout,omitempty"`

	// How many failed checks in a row make a target broken; until then
	// it is failing, and is checked again after interval/failures (at
	// most a day later). Default 3.
	Failures int `json:"failures,omitempty"`

	// Whether targets at loopback, private, link-local or unspecified
	// addresses are checked too. Without it no request goes to such an
	// address, as found after DNS on the address actually dialled, and
	// such a target is unverifiable. In-place targets are asked of the
	// site itself, never over the network, whatever this says.
	AllowPrivate bool `json:"allow_private,omitempty"`

	// The User-Agent of the checks. Default: one naming caddy-ark and the
	// site.
	UserAgent string `json:"user_agent,omitempty"`

	// Origins ("https://repo.example.org") whose targets, and shoulders
	// ("ark:12345/x5") whose identifiers' targets, are not checked for
	// now: they keep their last result.
	Skip []string `json:"skip,omitempty"`

	// The most checks per second, over every origin: it bounds what the
	// checks take from the site (CPU, connections, writes to the store),
	// so that its answers are not slowed. A pass of N targets needs
	// N/max_rate seconds at least: 50 a second check 10^6 targets in
	// under 6 hours. Default 50.
	MaxRate float64 `json:"max_rate,omitempty"`

	// An http(s) URL that receives, once per pass (interval), the targets
	// that became broken during it, as a JSON POST.
	Notify string `json:"notify,omitempty"`
}

// The defaults, and the bounds, of a Config.
const (
	DefaultInterval     = 720 * time.Hour
	DefaultHostInterval = time.Second
	DefaultTimeout      = 30 * time.Second
	DefaultFailures     = 3
	DefaultMaxRate      = 50

	MinInterval = time.Second
	MaxFailures = 100
)

// settings is a Config with its defaults applied and its skip list read.
type settings struct {
	site                            string
	interval, hostInterval, timeout time.Duration
	failures                        int
	maxRate                         float64
	allowPrivate                    bool
	userAgent                       string
	skipOrigins                     map[string]bool
	skipPrefixes                    []Prefix
	notify                          string
}

// Validate checks c as the checker will use it.
func (c *Config) Validate() error {
	_, err := c.settings("")
	return err
}

// settings returns c with its defaults; site names the site for the
// default User-Agent.
func (c *Config) settings(site string) (*settings, error) {
	s := &settings{
		site:     site,
		interval: DefaultInterval, hostInterval: DefaultHostInterval, timeout: DefaultTimeout, failures: DefaultFailures, maxRate: DefaultMaxRate,
		allowPrivate: c.AllowPrivate, userAgent: c.UserAgent, skipOrigins: map[string]bool{}, notify: c.Notify,
	}
	switch {
	case c.Interval < 0 || c.Interval > 0 && time.Duration(c.Interval) < MinInterval:
		return nil, fmt.Errorf("targets_check: interval %v: must be at least %v", time.Duration(c.Interval), MinInterval)
	case c.HostInterval < 0:
		return nil, fmt.Errorf("targets_check: host_interval %v: must not be negative", time.Duration(c.HostInterval))
	case c.Timeout < 0:
		return nil, fmt.Errorf("targets_check: timeout %v: must be positive", time.Duration(c.Timeout))
	case c.Failures < 0 || c.Failures > MaxFailures:
		return nil, fmt.Errorf("targets_check: failures %d: must be between 1 and %d", c.Failures, MaxFailures)
	case c.MaxRate < 0:
		return nil, fmt.Errorf("targets_check: max_rate %v: must be positive", c.MaxRate)
	case strings.ContainsAny(c.UserAgent, "\r\n"):
		return nil, errors.New("targets_check: user_agent: must be one line")
	}
	if c.Interval > 0 {
		s.interval = time.Duration(c.Interval)
	}
	if c.HostInterval > 0 {
		s.hostInterval = time.Duration(c.HostInterval)
	}
	if c.Timeout > 0 {
		s.timeout = time.Duration(c.Timeout)
	}
	if c.Failures > 0 {
		s.failures = c.Failures
	}
	if c.MaxRate > 0 {
		s.maxRate = c.MaxRate
	}
	if s.userAgent == "" {
		s.userAgent = "caddy-ark target check"
		if site != "" {
			s.userAgent += " (" + site + ")"
		}
	}
	if c.Notify != "" {
		if u, err := url.Parse(c.Notify); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("targets_check: notify %q: must be an absolute http(s) URL", c.Notify)
		}
	}
	for _, sk := range c.Skip {
		if o, ok := originOf(sk); ok {
			if u, _ := url.Parse(sk); u.Path != "" && u.Path != "/" || u.RawQuery != "" {
				return nil, fmt.Errorf("targets_check: skip %q: an origin has no path: write %s", sk, o)
			}
			s.skipOrigins[o] = true
			continue
		}
		p, err := ParsePrefix(sk)
		if err != nil || p == (Prefix{}) {
			return nil, fmt.Errorf("targets_check: skip %q: want an origin such as https://repo.example.org or a shoulder such as ark:12345/x5", sk)
		}
		s.skipPrefixes = append(s.skipPrefixes, p)
	}
	return s, nil
}

// skipped reports whether the target of key is not to be checked.
func (s *settings) skipped(key, target string) bool {
	if o, ok := originOf(target); ok && s.skipOrigins[o] {
		return true
	}
	for _, p := range s.skipPrefixes {
		if p.Covers(key) {
			return true
		}
	}
	return false
}

// Duration is a length of time in a Config: in JSON a string such as
// "720h", "1.5s" or "30d" (days), or a number of nanoseconds.
type Duration time.Duration

// UnmarshalJSON reads a string or a number of nanoseconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := ParseDuration(s)
		if err != nil {
			return err
		}
		*d = Duration(v)
		return nil
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return fmt.Errorf("duration %s: want a string such as \"720h\" or a number of nanoseconds", b)
	}
	*d = Duration(n)
	return nil
}

// MarshalJSON writes d as a string such as "720h0m0s".
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// ParseDuration reads a duration as Go does ("90m", "1.5s"), or a whole
// number of days ("30d").
func ParseDuration(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 || n > 100*365 {
			return 0, fmt.Errorf("duration %q: days must be a whole number such as 30d", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	return time.ParseDuration(s)
}
