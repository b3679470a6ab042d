package ark

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/caddy-ark/caddy-ark/answer"
	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/caddyfileargs"
	"github.com/caddy-ark/caddy-ark/internal/suggest"
	"github.com/caddy-ark/caddy-ark/mint"
	"github.com/caddy-ark/caddy-ark/oai"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/stats"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddy-ark/caddy-ark/table/pool"
	"github.com/caddy-ark/caddy-ark/targets"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// subdirective is a subdirective of the ark block and how it is read,
// with the table that its map lines go to.
type subdirective struct {
	name string
	read func(h *Handler, d *caddyfile.Dispenser, maps *table.Builder) error
}

// subdirectives are the ark block's subdirectives: the one list both of
// what the block takes and of what an unknown one is compared with for a
// "did you mean" (ties go to the earlier).
var subdirectives = []subdirective{
	{"naan", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error { return h.unmarshalNAANs(d) }},
	{"table", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error { return h.unmarshalTables(d) }},
	{"map", (*Handler).unmarshalMap},
	{"shoulder", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error { return h.unmarshalShoulder(d) }},
	{"foreign", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error { return h.unmarshalForeign(d) }},
	{"base_url", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error { return h.unmarshalBaseURL(d) }},
	{"ready", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error {
		return caddyfileargs.One(d, &h.Ready)
	}},
	{"organization", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error {
		return caddyfileargs.One(d, &h.Organization)
	}},
	{"max_length", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error {
		return caddyfileargs.Int(d, "max_length", &h.MaxLength, table.MaxIdentifierLength, "")
	}},
	{"cache_size", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error {
		return caddyfileargs.Int(d, "cache_size", &h.CacheSize, maxCacheSize, "off")
	}},
	{"policy", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error { return h.unmarshalPolicy(d) }},
	{"info_template", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error { return h.unmarshalInfoTemplate(d) }},
	{"watch", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error { return h.unmarshalWatch(d) }},
	{"verify_tables", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error {
		h.VerifyTables = true
		if d.NextArg() {
			return d.ArgErr()
		}
		return nil
	}},
	{"resident_tables", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error {
		h.ResidentTables = true
		if d.NextArg() {
			return d.ArgErr()
		}
		return nil
	}},
	{"store", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error { return h.unmarshalStore(d) }},
	{"local_copy", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error {
		return caddyfileargs.One(d, &h.LocalCopy)
	}},
	{"minter", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error { return h.unmarshalMinter(d) }},
	{"stats", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error {
		if h.Stats != nil {
			return d.Err("stats: given twice")
		}
		h.Stats = &stats.Config{}
		return h.Stats.UnmarshalCaddyfile(d)
	}},
	{"api", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error {
		if h.API != nil {
			return d.Err("api: given twice")
		}
		h.API = &api.API{}
		return h.API.UnmarshalCaddyfile(d)
	}},
	{"targets_check", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error {
		if h.TargetsCheck != nil {
			return d.Err("targets_check: given twice")
		}
		h.TargetsCheck = &targets.Config{}
		return h.TargetsCheck.UnmarshalCaddyfile(d)
	}},
	{"oai", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error {
		if h.OAI != nil {
			return d.Err("oai: given twice")
		}
		h.OAI = new(oai.Config)
		return h.OAI.UnmarshalCaddyfile(d)
	}},
	{"signposting", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error {
		return answer.UnmarshalSignposting(d, &h.NoSignposting, &h.SignpostFormats)
	}},
	{"negotiate", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error {
		return answer.UnmarshalNegotiate(d, &h.NoNegotiation)
	}},
	{"metadata_defaults", func(h *Handler, d *caddyfile.Dispenser, _ *table.Builder) error {
		return answer.UnmarshalMetadataDefaults(d, &h.MetadataDefaults)
	}},
}

// subdirectiveNames are the names of the subdirectives, in their order.
func subdirectiveNames() []string {
	names := make([]string, len(subdirectives))
	for i, s := range subdirectives {
		names[i] = s.name
	}
	return names
}

func init() {
	httpcaddyfile.RegisterHandlerDirective("ark", parseCaddyfile)
	httpcaddyfile.RegisterDirectiveOrder("ark", httpcaddyfile.Before, "redir")
}

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	m := new(Handler)
	err := m.UnmarshalCaddyfile(h.Dispenser)
	return m, err
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens:
//
//	ark [<matcher>] {
//		naan <naan>...
//		table <file>...
//		map <id> <target> [<status>] [{
//			passthrough on|off
//			<meta key> <value>
//		}]
//		map <id> 410
//		shoulder <ark:naan/shoulder | ark:naan> <target> [<status>]
//		foreign <url> | 404
//		base_url <url>
//		ready <path>
//		organization <name>
//		max_length <code points>
//		cache_size <entries> | off
//		policy <ark:naan/shoulder | ark:naan> <statement>
//		info_template <file>
//		watch [<interval>]
//		verify_tables
//		store [<backend> [<args>...]]
//		local_copy <dir>
//		minter <ark:naan/shoulder> <template>
//		api <prefix> {
//			key <name> <sha256-hex> <scope>...
//			key_file <file>
//			max_body <bytes>
//		}
//		signposting off | signposting {
//			formats <name>...
//		}
//		negotiate off
//		metadata_defaults <ark:naan/shoulder | ark:naan> {
//			<name> <value>
//		}
//		targets_check [{
//			interval <duration>
//			host_interval <duration>
//			timeout <duration>
//			failures <n>
//			max_rate <checks per second>
//			allow_private
//			user_agent <string>
//			skip <origin or shoulder>...
//			notify <url>
//		}]
//		oai <path> {
//			admin_email <address>...
//			repository_name <name>
//			page_size <n>
//			token_secret <secret>
//			concurrent_lists <n>
//		}
//	}
//
// Relative table and info_template paths are relative to the Caddyfile.
// Each map is checked as it is read, so a bad one is reported with its line.
// An unknown subdirective's error names the one it is nearest to.
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the directive's name
	if d.NextArg() {
		return d.ArgErr()
	}
	maps := table.NewBuilder(0)
	for d.NextBlock(0) {
		i := slices.IndexFunc(subdirectives, func(s subdirective) bool { return s.name == d.Val() })
		if i < 0 {
			return d.Errf("unknown subdirective %q%s", d.Val(), suggest.DidYouMean(d.Val(), subdirectiveNames()))
		}
		if err := subdirectives[i].read(h, d, maps); err != nil {
			return err
		}
	}
	if len(h.Tables) > 0 {
		h.TableStamp = pool.Stamp(h.Tables)
	}
	return nil
}

// unmarshalNAANs reads "naan <naan>...", checking each NAAN.
func (h *Handler) unmarshalNAANs(d *caddyfile.Dispenser) error {
	args := d.RemainingArgs()
	if len(args) == 0 {
		return d.ArgErr()
	}
	for _, n := range args {
		if _, err := resolve.ParseNAAN(n); err != nil {
			return d.Errf("naan %q: %v", n, err)
		}
	}
	h.NAANs = append(h.NAANs, args...)
	return nil
}

// unmarshalForeign reads "foreign <url> | 404".
func (h *Handler) unmarshalBaseURL(d *caddyfile.Dispenser) error {
	if err := caddyfileargs.One(d, &h.BaseURL); err != nil {
		return err
	}
	if _, err := answer.ParseBaseURL(h.BaseURL); err != nil {
		return d.WrapErr(err)
	}
	return nil
}

func (h *Handler) unmarshalForeign(d *caddyfile.Dispenser) error {
	if err := caddyfileargs.One(d, &h.Foreign); err != nil {
		return err
	}
	if err := checkForeign(h.Foreign); err != nil {
		return d.WrapErr(err)
	}
	return nil
}

func (h *Handler) unmarshalTables(d *caddyfile.Dispenser) error {
	args := d.RemainingArgs()
	if len(args) == 0 {
		return d.ArgErr()
	}
	for _, p := range args {
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(d.File()), p)
		}
		h.Tables = append(h.Tables, p)
	}
	return nil
}

// unmarshalMap reads "map <id> <target> [<status>]" or "map <id> 410", with
// an optional block of passthrough and metadata.
func (h *Handler) unmarshalMap(d *caddyfile.Dispenser, maps *table.Builder) error {
	at := fmt.Sprintf("%s:%d", d.File(), d.Line())
	args := d.RemainingArgs()
	var e table.Entry
	switch {
	case len(args) == 2 && args[1] == "410":
		e = table.Entry{ID: args[0], Status: 410}
	case len(args) == 2 || len(args) == 3:
		e = table.Entry{ID: args[0], Target: args[1]}
		if len(args) == 3 {
			status, err := strconv.Atoi(args[2])
			if err != nil {
				return d.Errf("map %s: status %q is not a number", args[0], args[2])
			}
			e.Status = status
		}
	default:
		return d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		key := d.Val()
		var value string
		if err := caddyfileargs.One(d, &value); err != nil {
			return err
		}
		if key == "passthrough" {
			on, err := parseOnOff(value)
			if err != nil {
				return d.Errf("map %s: passthrough: %v", e.ID, err)
			}
			e.Passthrough = &on
			continue
		}
		if e.Meta == nil {
			e.Meta = map[string]string{}
		}
		if _, dup := e.Meta[key]; dup {
			return d.Errf("map %s: meta %q appears twice", e.ID, key)
		}
		e.Meta[key] = value
	}
	e.Source = at
	maps.StartSource(e.SourceName())
	if err := maps.Add(&e); err != nil {
		return d.Errf("map: %v", err)
	}
	h.Entries = append(h.Entries, e)
	return nil
}

// unmarshalShoulder reads "shoulder <prefix> <target> [<status>]".
func (h *Handler) unmarshalShoulder(d *caddyfile.Dispenser) error {
	args := d.RemainingArgs()
	if len(args) != 2 && len(args) != 3 {
		return d.ArgErr()
	}
	t := resolve.Template{Prefix: args[0], Target: args[1]}
	if len(args) == 3 {
		status, err := strconv.Atoi(args[2])
		if err != nil {
			return d.Errf("shoulder %s: status %q is not a number", args[0], args[2])
		}
		t.Status = status
	}
	if _, err := t.Compile(); err != nil {
		return d.Errf("shoulder: %v", err)
	}
	h.Templates = append(h.Templates, t)
	return nil
}

// unmarshalWatch reads "watch [<interval>]".
func (h *Handler) unmarshalWatch(d *caddyfile.Dispenser) error {
	h.Watch = true
	if !d.NextArg() {
		return nil
	}
	interval, err := caddy.ParseDuration(d.Val())
	if err != nil || interval <= 0 {
		return d.Errf("watch: %q is not a positive duration", d.Val())
	}
	if interval < minWatchInterval {
		return d.Errf("watch: %s is too short: the shortest interval is %s", d.Val(), minWatchInterval)
	}
	h.WatchInterval = caddy.Duration(interval)
	if d.NextArg() {
		return d.ArgErr()
	}
	return nil
}

// unmarshalInfoTemplate reads "info_template <file>", relative to the
// Caddyfile unless absolute.
func (h *Handler) unmarshalInfoTemplate(d *caddyfile.Dispenser) error {
	if err := caddyfileargs.One(d, &h.InfoTemplate); err != nil {
		return err
	}
	if !filepath.IsAbs(h.InfoTemplate) {
		h.InfoTemplate = filepath.Join(filepath.Dir(d.File()), h.InfoTemplate)
	}
	return nil
}

// unmarshalPolicy reads "policy <prefix> <statement>".
func (h *Handler) unmarshalPolicy(d *caddyfile.Dispenser) error {
	args := d.RemainingArgs()
	if len(args) != 2 {
		return d.Errf("policy: want a prefix and one statement (quote it), got %d arguments", len(args))
	}
	p := resolve.Policy{Prefix: args[0], Statement: args[1]}
	if _, err := resolve.CompilePolicies(append(h.Policies, p)); err != nil {
		return d.Errf("policy: %v", err)
	}
	h.Policies = append(h.Policies, p)
	return nil
}

func parseOnOff(s string) (bool, error) {
	switch s {
	case "on", "true":
		return true, nil
	case "off", "false":
		return false, nil
	}
	return false, fmt.Errorf("%q is not on or off", s)
}

// Interface guard.
var _ caddyfile.Unmarshaler = (*Handler)(nil)

// unmarshalMinter reads "minter <ark:naan/shoulder> <template>".
func (h *Handler) unmarshalMinter(d *caddyfile.Dispenser) error {
	args := d.RemainingArgs()
	if len(args) != 2 {
		return d.ArgErr()
	}
	m := mint.Minter{Shoulder: args[0], Template: args[1]}
	if _, err := m.Compile(); err != nil {
		return d.Errf("minter: %v", err)
	}
	h.Minters = append(h.Minters, m)
	return nil
}
