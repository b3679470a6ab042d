package oai

import (
	"errors"
	"fmt"
	"net/mail"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// DefaultPageSize is how many records or headers a list page holds when
// page_size is not given; MaxPageSize bounds it.
const (
	DefaultPageSize = 100
	MaxPageSize     = 10000
)

// Config is the OAI-PMH provider of a site: public and read only.
type Config struct {
	// The path of the provider on the site, such as "/oai": its baseURL.
	Path string `json:"path"`

	// The e-mail addresses of the repository's administrators, which
	// Identify must give: at least one.
	AdminEmail []string `json:"admin_email"`

	// The repository's name in Identify. Default: the site's
	// organization, else its host.
	RepositoryName string `json:"repository_name,omitempty"`

	// How many records (ListRecords) or headers (ListIdentifiers) a page
	// holds before a resumption token. Default 100, at most 10000.
	PageSize int `json:"page_size,omitempty"`
	// The secret that signs resumption tokens (HMAC-SHA256), at least 16
	// bytes; placeholders such as {env.OAI_TOKEN_SECRET} are replaced.
	// Nodes serving one name must all have the same one, or share Caddy's
	// storage. Default: a random secret made once and kept in Caddy's
	// storage (ark/oai/token_secret), so that tokens outlive reloads and
	// restarts.
	TokenSecret string `json:"token_secret,omitempty"`
	// How many lists (ListRecords, ListIdentifiers, and ListSets when it
	// must read every record) the provider reads at once; a request
	// beyond is answered 503 with Retry-After, which harvesters honour,
	// so that harvesters cannot starve resolution. Default 2, at most
	// 1000.
	ConcurrentLists int `json:"concurrent_lists,omitempty"`

	key   []byte    // what signs tokens
	scans scanSlots // the lists being read
	sets  *setIndex // the records' sets
}

// Provision makes what the provider keeps between requests: the key that
// signs resumption tokens, the bound on lists read at once, the index of
// the records' sets.
func (c *Config) Provision(ctx caddy.Context) error {
	n := c.ConcurrentLists
	if n == 0 {
		n = DefaultConcurrentLists
	}
	c.scans, c.sets = make(scanSlots, n), &setIndex{}
	return c.provisionKey(ctx)
}

// UnmarshalCaddyfile reads, after the "oai" token of the ark block,
//
//	oai <path> {
//		admin_email <address>...
//		repository_name <name>
//		page_size <n>
//		token_secret <secret>
//		concurrent_lists <n>
//	}
func (c *Config) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	if !d.NextArg() {
		return d.Err("oai: a path is required, such as oai /oai")
	}
	c.Path = d.Val()
	if d.NextArg() {
		return d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch name := d.Val(); name {
		case "admin_email":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.ArgErr()
			}
			c.AdminEmail = append(c.AdminEmail, args...)
		case "repository_name":
			if !d.NextArg() {
				return d.ArgErr()
			}
			c.RepositoryName = d.Val()
			if d.NextArg() {
				return d.ArgErr()
			}
		case "page_size", "concurrent_lists":
			var n int
			if !d.NextArg() {
				return d.ArgErr()
			}
			if _, err := fmt.Sscan(d.Val(), &n); err != nil {
				return d.Errf("oai: %s %q is not a number", name, d.Val())
			}
			if name == "page_size" {
				c.PageSize = n
			} else {
				c.ConcurrentLists = n
			}
			if d.NextArg() {
				return d.ArgErr()
			}
		case "token_secret":
			if !d.NextArg() {
				return d.ArgErr()
			}
			c.TokenSecret = d.Val()
			if d.NextArg() {
				return d.ArgErr()
			}
			if !strings.Contains(c.TokenSecret, "{") && len(c.TokenSecret) < minSecret {
				return d.Errf("oai: token_secret must be at least %d bytes long", minSecret)
			}
		default:
			return d.Errf("oai: unknown subdirective %q (the block takes admin_email, repository_name, page_size, token_secret and concurrent_lists)", name)
		}
	}
	if err := c.Validate(); err != nil {
		return d.Err(err.Error())
	}
	return nil
}

// Validate checks the configuration: a path, at least one admin e-mail
// address that is one, a page size in bounds.
func (c *Config) Validate() error {
	if !strings.HasPrefix(c.Path, "/") {
		return fmt.Errorf("oai: path %q must start with /", c.Path)
	}
	if len(c.AdminEmail) == 0 {
		return errors.New("oai: admin_email is required: OAI-PMH's Identify gives the address of the repository's administrator (admin_email <address>)")
	}
	for _, a := range c.AdminEmail {
		if addr, err := mail.ParseAddress(a); err != nil || addr.Address != a {
			return fmt.Errorf("oai: admin_email %q is not an e-mail address such as admin@example.org", a)
		}
	}
	if c.PageSize < 0 || c.PageSize > MaxPageSize {
		return fmt.Errorf("oai: page_size %d must be between 1 and %d", c.PageSize, MaxPageSize)
	}
	if c.ConcurrentLists < 0 || c.ConcurrentLists > MaxConcurrentLists {
		return fmt.Errorf("oai: concurrent_lists %d must be between 1 and %d", c.ConcurrentLists, MaxConcurrentLists)
	}
	return nil
}

func (c *Config) pageSize() int {
	if c.PageSize == 0 {
		return DefaultPageSize
	}
	return c.PageSize
}
