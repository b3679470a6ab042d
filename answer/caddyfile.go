package answer

import (
	"fmt"
	"slices"

	"github.com/caddy-ark/caddy-ark/internal/caddyfileargs"
	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// UnmarshalSignposting reads "signposting off" or
// "signposting { formats <name>... }" into the handler's settings off
// (no_signposting) and formats (signpost_formats).
func UnmarshalSignposting(d *caddyfile.Dispenser, off *bool, formats *[]string) error {
	if d.NextArg() {
		if d.Val() != "off" {
			return d.Errf("signposting: %q: want off, or a block", d.Val())
		}
		*off = true
		if d.NextArg() {
			return d.ArgErr()
		}
		return nil
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch d.Val() {
		case "formats":
			names := d.RemainingArgs()
			if err := CheckFormatNames(names); err != nil {
				return d.Errf("signposting: formats: %v", err)
			}
			*formats = append(make([]string, 0, len(names)), names...)
		default:
			return d.Errf("signposting: unknown subdirective %q", d.Val())
		}
	}
	return nil
}

// UnmarshalNegotiate reads "negotiate off" into the handler's setting off
// (no_negotiation).
func UnmarshalNegotiate(d *caddyfile.Dispenser, off *bool) error {
	var s string
	if err := caddyfileargs.One(d, &s); err != nil {
		return err
	}
	if s != "off" {
		return d.Errf("negotiate: %q: the only setting is off (negotiation is on by default)", s)
	}
	*off = true
	return nil
}

// UnmarshalMetadataDefaults reads
// "metadata_defaults <prefix> { <name> <value> ... }" and adds it to ds.
func UnmarshalMetadataDefaults(d *caddyfile.Dispenser, ds *[]MetadataDefaults) error {
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
	for _, other := range *ds {
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
	if _, err := compileMetadataDefaults(append(slices.Clip(*ds), md)); err != nil {
		return d.Err(err.Error())
	}
	*ds = append(*ds, md)
	return nil
}

// CheckFormatNames refuses a name that is not a metadata format's.
func CheckFormatNames(names []string) error {
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
