package resolve

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/caddy-ark/caddy-ark/mint"
	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// Options is what a resolver is made of.
type Options struct {
	Table      table.Table
	NAANs      []string   // the site's NAANs, as configured
	Templates  []Template // as configured
	Foreign    string     // the global resolver's URL without a trailing "/", "" to answer 404
	MaxLength  int        // the longest identifier, in code points
	Policies   []Policy   // as configured
	Store      store.Store
	StoreCache *StoreCache // nil when caching is off
	Cache      Cache       // nil when caching is off
	Minters    mint.Minters
}

// New builds a resolver from o, checking its configuration and that the
// table and the store never both assign an identifier (CheckSources). A
// store that cannot be reached is no error: the resolver then reports it
// through Unchecked.
func New(o Options) (*Resolver, error) {
	rs := &Resolver{ours: map[string]struct{}{}, parser: normalize.Parser{MaxLength: o.MaxLength}, cache: o.Cache}
	for _, n := range o.NAANs {
		naan, err := ParseNAAN(n)
		if err != nil {
			return nil, fmt.Errorf("naan %q: %w", n, err)
		}
		rs.ours[naan] = struct{}{}
	}
	for i, t := range o.Templates {
		c, err := t.Compile()
		if err != nil {
			return nil, fmt.Errorf("templates[%d]: %w", i, err)
		}
		rs.templates = append(rs.templates, c)
		rs.ours[c.naan] = struct{}{}
	}
	sortTemplates(rs.templates)
	rs.foreign = o.Foreign
	if u, err := url.Parse(rs.foreign); err == nil {
		rs.foreignHost = u.Hostname()
	}
	rs.table = o.Table
	rs.store, rs.stored, rs.minters = o.Store, o.StoreCache, o.Minters
	rs.local, _ = o.Store.(localLooker)
	for _, naan := range rs.table.NAANs() {
		rs.ours[naan] = struct{}{}
	}
	var err error
	if rs.policies, err = CompilePolicies(o.Policies); err != nil {
		return nil, err
	}
	for naan := range rs.policies {
		rs.ours[naan] = struct{}{}
	}
	if rs.store != nil {
		if err := CheckSources(context.Background(), rs.table, rs.store); err != nil {
			if !errors.Is(err, store.ErrUnavailable) {
				return nil, err
			}
			rs.unchecked = err
		}
	}
	return rs, nil
}

// ParseNAAN reads a configured NAAN, such as "12345", and returns it
// normalized. Its errors speak of the NAAN as written, not of the ARK
// prefix it is read as.
func ParseNAAN(n string) (string, error) {
	naan, shoulder, err := normalize.ParsePrefix("ark:" + n)
	var refusal *normalize.Error
	switch {
	case errors.As(err, &refusal) && errors.Is(refusal, normalize.ErrBadNAAN):
		return "", fmt.Errorf("bad NAAN: %s", refusal.Detail)
	case err != nil || shoulder != "":
		return "", errors.New("bad NAAN: a NAAN is letters and digits only, such as 12345")
	}
	return naan, nil
}
