package ark

import (
	"github.com/caddy-ark/caddy-ark/internal/suggest"
	"github.com/caddy-ark/caddy-ark/stats"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// statsSubdirectives are the stats block's subdirectives.
var statsSubdirectives = []string{"flush_interval", "top", "not_found", "retention"}

// unmarshalStats reads
//
//	stats [{
//		flush_interval <duration>
//		top <n>
//		not_found <n>
//		retention <duration>
//	}]
//
// checking each value as it is read.
func (h *Handler) unmarshalStats(d *caddyfile.Dispenser) error {
	if h.Stats != nil {
		return d.Err("stats: given twice")
	}
	if d.NextArg() {
		return d.ArgErr()
	}
	c := &stats.Config{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch name := d.Val(); name {
		case "flush_interval", "retention":
			var s string
			if err := unmarshalOne(d, &s); err != nil {
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
			if err := unmarshalInt(d, "stats: top", &c.Top, stats.MaxTop, ""); err != nil {
				return err
			}
		case "not_found":
			if err := unmarshalInt(d, "stats: not_found", &c.NotFound, stats.MaxTop, ""); err != nil {
				return err
			}
		default:
			return d.Errf("stats: unknown subdirective %q%s (the block takes flush_interval, top, not_found and retention)", name, suggest.DidYouMean(name, statsSubdirectives))
		}
		if err := c.Validate(); err != nil {
			return d.Err(err.Error())
		}
	}
	h.Stats = c
	return nil
}
