package ark

import (
	"fmt"
	"slices"

	"github.com/caddy-ark/caddy-ark/internal/caddyfileargs"
	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// unmarshalSignposting reads "signposting off" or
// "signposting { formats <name>... }".
func (h *Handler) unmarshalSignposting(d *caddyfile.Dispenser) error {
	if d.NextArg() {
		if d.Val() != "off" {
			return d.Errf("signposting: %q: want off, or a block", d.Val())
		}
		h.NoSignposting = true
		if d.NextArg() {
			return d.ArgErr()
		}
		return nil
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch d.Val() {
		case "formats":
			names := d.RemainingArgs()
			if err := checkFormatNames(names); err != nil {
				return d.Errf("signposting: formats: %v", err)
			}
			h.SignpostFormats = append(make([]string, 0, len(names)), names...)
		default:
			return d.Errf("signposting: unknown subdirective %q", d.Val())
		}
	}
	return nil
}

// unmarshalNegotiate reads "negotiate off".
func (h *Handler) unmarshalNegotiate(d *caddyfile.Dispenser) error {
	var s string
	if err := caddyfileargs.One(d, &s); err != nil {
		return err
	}
	if s != "off" {
		return d.Errf("negotiate: %q: the only setting is off (negotiation is on by default)", s)
	}
	h.NoNegotiation = true
	return nil
}

// unmarshalMetadataDefaults reads
// "metadata_defaults <prefix> { <name> <value> ... }".
func (h *Handler) unmarshalMetadataDefaults(d *caddyfile.Dispenser) error {
	if !d.NextArg() {
		return d.ArgErr()
	}
	md := MetadataDefaults{Prefix: d.Val(), Meta: map[string]string{}}
	if d.NextArg() {
		return d.ArgErr()
	}
	naan, shoulder, err := normalize.ParsePrefix(md.Prefix)
	if err != nil {
		return d.Errf("metadata_defaults %s: %v", md.Prefix, err)
	}
	for _, other := range h.MetadataDefaults {
		if n, s, _ := normalize.ParsePrefix(other.Prefix); n == naan && s == shoulder {
			return d.Errf("metadata_defaults %s is %s, which already has defaults", md.Prefix, resolve.PolicyPrefix(naan, shoulder))
		}
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		name := d.Val()
		if !d.NextArg() {
			return d.Errf("metadata_defaults %s: %s: want a value (quote it)", md.Prefix, name)
		}
		if _, dup := md.Meta[name]; dup {
			return d.Errf("metadata_defaults %s: %s is given twice", md.Prefix, name)
		}
		md.Meta[name] = d.Val()
		if d.NextArg() {
			return d.Errf("metadata_defaults %s: %s: want one value (quote it)", md.Prefix, name)
		}
	}
	if _, err := compileMetadataDefaults(append(slices.Clip(h.MetadataDefaults), md)); err != nil {
		return d.Err(err.Error())
	}
	h.MetadataDefaults = append(h.MetadataDefaults, md)
	return nil
}

// checkFormatNames refuses a name that is not a metadata format's.
func checkFormatNames(names []string) error {
	for _, name := range names {
		if formatNamed(name) == nil {
			names := make([]string, len(metadataFormats))
			for i, f := range metadataFormats {
				names[i] = f.Name
			}
			return fmt.Errorf("%q is not a metadata format; there are %v", name, names)
		}
	}
	return nil
}
