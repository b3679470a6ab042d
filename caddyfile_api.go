package ark

import (
	"path/filepath"
	"strconv"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// unmarshalAPI reads
//
//	api <prefix> {
//		key <name> <sha256-hex> <scope>...
//		key_file <file>
//		max_body <bytes>
//		in_place <path-prefix>...
//	}
//
// checking each key as it is read. A relative key_file is relative to the
// Caddyfile.
func (h *Handler) unmarshalAPI(d *caddyfile.Dispenser) error {
	if h.API != nil {
		return d.Err("api: given twice")
	}
	a := &api.API{}
	if err := unmarshalOne(d, &a.Prefix); err != nil {
		return err
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch d.Val() {
		case "key":
			args := d.RemainingArgs()
			if len(args) < 3 {
				return d.Errf("api: key: want <name> <sha256-hex> <scope>..., got %d arguments", len(args))
			}
			k := api.APIKey{Name: args[0], Hash: args[1], Scopes: args[2:]}
			if err := k.Validate(); err != nil {
				return d.Errf("api: %v", err)
			}
			a.Keys = append(a.Keys, k)
		case "key_file":
			var f string
			if err := unmarshalOne(d, &f); err != nil {
				return err
			}
			if !filepath.IsAbs(f) {
				f = filepath.Join(filepath.Dir(d.File()), f)
			}
			a.KeyFiles = append(a.KeyFiles, f)
		case "max_body":
			var s string
			if err := unmarshalOne(d, &s); err != nil {
				return err
			}
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n <= 0 {
				return d.Errf("api: max_body: %q is not a positive number of bytes", s)
			}
			a.MaxBody = n
		case "in_place":
			prefixes := d.RemainingArgs()
			if len(prefixes) == 0 {
				return d.Err("api: in_place: want one path prefix or more, such as /objects/")
			}
			a.InPlace = append(a.InPlace, prefixes...)
		default:
			return d.Errf("api: unknown subdirective %q", d.Val())
		}
	}
	h.API = a
	return nil
}
