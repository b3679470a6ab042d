// Package caddyfileargs reads the arguments of Caddyfile subdirectives
// the same way for every package that parses a part of the ark block,
// so that their errors read alike.
package caddyfileargs

import (
	"strconv"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// One reads the one argument of the current subdirective into dst: none,
// or more than one, is an argument error.
func One(d *caddyfile.Dispenser, dst *string) error {
	if !d.NextArg() {
		return d.ArgErr()
	}
	*dst = d.Val()
	if d.NextArg() {
		return d.ArgErr()
	}
	return nil
}

// Int reads the number of subdirective name, from 1 to limit, or off
// (stored as -1) when off is the word for it.
func Int(d *caddyfile.Dispenser, name string, dst *int, limit int, off string) error {
	var s string
	if err := One(d, &s); err != nil {
		return err
	}
	if off != "" && s == off {
		*dst = -1
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return d.Errf("%s: %q is not a positive number", name, s)
	}
	if n > limit {
		return d.Errf("%s: %d is more than the limit, %d", name, n, limit)
	}
	*dst = n
	return nil
}
