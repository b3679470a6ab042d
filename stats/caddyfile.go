package stats

import (
	"github.com/caddy-ark/caddy-ark/internal/caddyfileargs"
	"github.com/caddy-ark/caddy-ark/internal/suggest"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// subdirectives are the stats block's subdirectives.
var subdirectives = []string{"flush_interval", "top", "not_found", "retention"}

// UnmarshalCaddyfile reads the ark block's subdirective
//
//	stats [{
//		flush_interval <duration>
//		top <n>
//		not_found <n>
//		retention <duration>
//	}]
//
// checking each value as it is read. d is at the subdirective's name.
func (c *Config) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	if d.NextArg() {
		return d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch name := d.Val(); name {
		case "flush_interval", "retention":
			var s string
			if err := caddyfileargs.One(d, &s); err != nil {
				return err
			}
			dur, err := caddy.ParseDuration(s)
			if err != nil || dur <= 0 {
				return d.Errf("stats: %s: %q is not a positive duration such as 1m or 400d", name, s)
			}
			if name == "flush_interval" {
				c.FlushInterval = caddy.Duration(dur)
			} else {
				c.Retention = caddy.Duration(dur)
			}
		case "top":
			if err := caddyfileargs.Int(d, "stats: top", &c.Top, MaxTop, ""); err != nil {
				return err
			}
		case "not_found":
			if err := caddyfileargs.Int(d, "stats: not_found", &c.NotFound, MaxTop, ""); err != nil {
				return err
			}
		default:
			return d.Errf("stats: unknown subdirective %q%s (the block takes %s)", name, suggest.DidYouMean(name, subdirectives), suggest.List(subdirectives))
		}
		if err := c.Validate(); err != nil {
			return d.Err(err.Error())
		}
	}
	return nil
}
