package api

import (
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddyfileargs"
	"github.com/caddy-ark/caddy-ark/internal/suggest"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// subdirectives and uiSubdirectives are the api block's and its ui
// block's subdirectives.
var (
	subdirectives   = []string{"key", "key_file", "max_body", "in_place", "ui", "people", "person", "group", "ezid"}
	uiSubdirectives = []string{"session", "secret_file"}
)

// UnmarshalCaddyfile reads the ark block's subdirective
//
//	api <prefix> {
//		key <name> <sha256-hex> <scope>...
//		key_file <file>
//		max_body <bytes>
//		in_place <path-prefix>...
//		ui {
//			session <duration>
//			secret_file <file>
//		}
//		people basic_auth | header <user-header> [groups <groups-header>]
//		person <name> <scope>...
//		group <name> <scope>...
//		ezid [<path>] {
//			session <duration>
//			secret <secret>
//		}
//	}
//
// checking each key as it is read. A relative key_file or secret_file is
// relative to the Caddyfile. ui, with or without its block, turns on the
// console. d is at the subdirective's name.
func (a *API) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	if err := caddyfileargs.One(d, &a.Prefix); err != nil {
		return err
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch d.Val() {
		case "key":
			args := d.RemainingArgs()
			if len(args) < 3 {
				return d.Errf("api: key: want <name> <sha256-hex> <scope>..., got %d arguments", len(args))
			}
			k := APIKey{Name: args[0], Hash: args[1], Scopes: args[2:]}
			if err := k.Validate(); err != nil {
				return d.Errf("api: %v", err)
			}
			a.Keys = append(a.Keys, k)
		case "key_file":
			var f string
			if err := caddyfileargs.One(d, &f); err != nil {
				return err
			}
			if !filepath.IsAbs(f) {
				f = filepath.Join(filepath.Dir(d.File()), f)
			}
			a.KeyFiles = append(a.KeyFiles, f)
		case "max_body":
			var s string
			if err := caddyfileargs.One(d, &s); err != nil {
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
		case "people":
			if err := a.unmarshalPeople(d); err != nil {
				return err
			}
		case "person", "group":
			kind := d.Val()
			args := d.RemainingArgs()
			if len(args) < 2 {
				return d.Errf("api: %s: want <name> <scope>..., got %d arguments", kind, len(args))
			}
			if a.People == nil {
				a.People = &People{}
			}
			g := Grant{Name: args[0], Scopes: args[1:]}
			if err := compileGrants(kind, []Grant{g}, map[string][]scope{}, map[string][]string{}); err != nil {
				return d.Err(err.Error())
			}
			if kind == "person" {
				a.People.Persons = append(a.People.Persons, g)
			} else {
				a.People.Groups = append(a.People.Groups, g)
			}
		case "ui":
			if a.UI != nil {
				return d.Err("api: ui: given twice")
			}
			ui, err := unmarshalUI(d)
			if err != nil {
				return err
			}
			a.UI = ui
		case "ezid":
			if a.EZID != nil {
				return d.Err("api: ezid: given twice")
			}
			e, err := unmarshalEZID(d)
			if err != nil {
				return err
			}
			a.EZID = e
		default:
			return d.Errf("api: unknown subdirective %q%s", d.Val(), suggest.DidYouMean(d.Val(), subdirectives))
		}
	}
	return nil
}

// unmarshalUI reads the api block's ui [{ session <duration>; secret_file
// <file> }].
func unmarshalUI(d *caddyfile.Dispenser) (*UI, error) {
	ui := &UI{}
	if d.NextArg() {
		return nil, d.Errf("api: ui takes no arguments, got %q: give session or secret_file in its block", d.Val())
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch d.Val() {
		case "session":
			if err := unmarshalSession(d, "ui", time.Second, "1s", "8h", &ui.Session); err != nil {
				return nil, err
			}
		case "secret_file":
			if err := caddyfileargs.One(d, &ui.SecretFile); err != nil {
				return nil, err
			}
			if !filepath.IsAbs(ui.SecretFile) {
				ui.SecretFile = filepath.Join(filepath.Dir(d.File()), ui.SecretFile)
			}
		default:
			return nil, d.Errf("api: ui: unknown subdirective %q%s", d.Val(), suggest.DidYouMean(d.Val(), uiSubdirectives))
		}
	}
	return ui, nil
}

// unmarshalSession reads the session <duration> of block (ui or ezid)
// into into: a length of time of at least least, written min in the
// error, such as example.
func unmarshalSession(d *caddyfile.Dispenser, block string, least time.Duration, min, example string, into *caddy.Duration) error {
	var s string
	if err := caddyfileargs.One(d, &s); err != nil {
		return err
	}
	dur, err := caddy.ParseDuration(s)
	if err != nil || dur < least {
		return d.Errf("api: %s: session: %q is not a length of time of %s or more, such as %s", block, s, min, example)
	}
	*into = caddy.Duration(dur)
	return nil
}

// unmarshalPeople reads the api block's people basic_auth, or people
// header <user-header> [groups <groups-header>]; d is at people.
func (a *API) unmarshalPeople(d *caddyfile.Dispenser) error {
	if a.People == nil {
		a.People = &People{}
	}
	if a.People.From != "" {
		return d.Err("api: people: given twice")
	}
	args := d.RemainingArgs()
	switch {
	case len(args) == 1 && args[0] == FromBasicAuth:
	case len(args) == 2 && args[0] == FromHeader:
		a.People.UserHeader = args[1]
	case len(args) == 4 && args[0] == FromHeader && args[2] == "groups":
		a.People.UserHeader, a.People.GroupsHeader = args[1], args[3]
	default:
		return d.Errf("api: people: want basic_auth, or header <user-header> [groups <groups-header>], got %q", strings.Join(args, " "))
	}
	a.People.From = args[0]
	return nil
}
