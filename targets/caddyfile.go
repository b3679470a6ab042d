package targets

import (
	"strconv"

	"github.com/caddy-ark/caddy-ark/internal/caddyfileargs"
	"github.com/caddy-ark/caddy-ark/internal/suggest"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// options are the targets_check block's options.
var options = []string{"interval", "host_interval", "timeout", "failures", "max_rate", "allow_private", "user_agent", "skip", "notify"}

// UnmarshalCaddyfile reads the ark block's subdirective
//
//	targets_check [{
//		interval <duration>
//		host_interval <duration>
//		timeout <duration>
//		failures <n>
//		max_rate <checks per second>
//		allow_private
//		user_agent <string>
//		skip <origin or shoulder>...
//		notify <url>
//	}]
//
// checking the whole block once it is read, so that a bad value is
// reported at the directive's line. d is at the subdirective's name.
func (c *Config) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	if d.NextArg() {
		return d.ArgErr()
	}
	duration := func(name string, dst *Duration) error {
		var s string
		if err := caddyfileargs.One(d, &s); err != nil {
			return err
		}
		v, err := caddy.ParseDuration(s)
		if err != nil {
			return d.Errf("targets_check: %s: %q is not a duration such as 720h", name, s)
		}
		*dst = Duration(v)
		return nil
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		var err error
		switch d.Val() {
		case "interval":
			err = duration("interval", &c.Interval)
		case "host_interval":
			err = duration("host_interval", &c.HostInterval)
		case "timeout":
			err = duration("timeout", &c.Timeout)
		case "failures":
			var s string
			if err = caddyfileargs.One(d, &s); err == nil {
				n, convErr := strconv.Atoi(s)
				if convErr != nil || n <= 0 {
					return d.Errf("targets_check: failures: %q is not a positive number", s)
				}
				c.Failures = n
			}
		case "max_rate":
			var s string
			if err = caddyfileargs.One(d, &s); err == nil {
				r, convErr := strconv.ParseFloat(s, 64)
				if convErr != nil || r <= 0 {
					return d.Errf("targets_check: max_rate: %q is not a positive number of checks per second", s)
				}
				c.MaxRate = r
			}
		case "allow_private":
			c.AllowPrivate = true
			if d.NextArg() {
				err = d.ArgErr()
			}
		case "user_agent":
			err = caddyfileargs.One(d, &c.UserAgent)
		case "skip":
			more := d.RemainingArgs()
			if len(more) == 0 {
				return d.Err("targets_check: skip: want an origin (https://repo.example.org) or a shoulder (ark:12345/x5), or more")
			}
			c.Skip = append(c.Skip, more...)
		case "notify":
			err = caddyfileargs.One(d, &c.Notify)
		default:
			err = d.Errf("targets_check: unknown option %q%s (it takes %s)", d.Val(), suggest.DidYouMean(d.Val(), options), suggest.List(options))
		}
		if err != nil {
			return err
		}
	}
	if err := c.Validate(); err != nil {
		return d.Err(err.Error())
	}
	return nil
}
