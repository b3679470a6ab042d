package mint

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/caddy-ark/caddy-ark/internal/metrics"
	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// Minter mints names under one shoulder from a Noid template, keeping its
// state in the store.
type Minter struct {
	// The shoulder the names start with: "ark:<NAAN>/<shoulder>", such as
	// "ark:12345/x5".
	Shoulder string `json:"shoulder"`

	// The Noid template of the rest of the name: an optional ".", then r
	// (random order), s (sequential) or z (sequential, growing without
	// end), then positions d (a digit) and e (a betanumeric character,
	// 0-9 and bcdfghjkmnpqrstvwxz), then an optional k, an NCDA check
	// character computed over NAAN/Name. ".reeddeedk" under ark:12345/x5
	// mints 707,281,000 names such as ark:12345/x54xz321g.
	Template string `json:"template"`
}

// MintMax is the most names one Mint call mints.
const MintMax = 1000

// randomDraws is how many random draws one name may take before the
// Compiled declares its space full. With a fraction f of the space taken,
// all of them collide with probability f^randomDraws: below 1e-9 while
// four names in five are still free.
const randomDraws = 128

// The errors of Mint.
var (
	ErrNoMinter  = errors.New("no minter is configured for this shoulder")
	ErrMintCount = fmt.Errorf("mint 1 to %d names at a time", MintMax)
	// ErrSpaceExhausted: the template's names have run out (or, for a
	// random template, could not be found among those left).
	ErrSpaceExhausted = errors.New("the shoulder's template has no names left")
)

// Compiled is a compiled Minter.
type Compiled struct {
	Shoulder string // "ark:12345/x5", normalized
	naan     string // "12345"
	prefix   string // the start of every Name: the shoulder, "x5"
	tmpl     noidTemplate
}

// Minters are the handler's minters, longest shoulder first.
type Minters []*Compiled

// Compile checks the configured minters.
func Compile(ms []Minter) (Minters, error) {
	var out Minters
	seen := map[string]bool{}
	for i, m := range ms {
		c, err := m.Compile()
		if err != nil {
			return nil, fmt.Errorf("minters[%d]: %w", i, err)
		}
		if seen[c.Shoulder] {
			return nil, fmt.Errorf("minters[%d]: shoulder %s has a minter already", i, c.Shoulder)
		}
		seen[c.Shoulder] = true
		out = append(out, c)
	}
	sortMinters(out)
	return out, nil
}

// Compile checks the minter's shoulder and template and returns it ready
// to mint.
func (m *Minter) Compile() (*Compiled, error) {
	naan, shoulder, err := normalize.ParsePrefix(m.Shoulder)
	if err != nil {
		return nil, err
	}
	t, err := parseNoidTemplate(m.Template)
	if err != nil {
		return nil, fmt.Errorf("shoulder %s: %w", m.Shoulder, err)
	}
	return &Compiled{Shoulder: "ark:" + naan + "/" + shoulder, naan: naan, prefix: shoulder, tmpl: t}, nil
}

func sortMinters(ms Minters) {
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && len(ms[j].prefix) > len(ms[j-1].prefix); j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
}

// Find returns the minter of a shoulder key, "ark:12345/x5".
func (ms Minters) Find(shoulder string) *Compiled {
	for _, m := range ms {
		if m.Shoulder == shoulder {
			return m
		}
	}
	return nil
}

// Covering returns the minter with a check character whose shoulder
// starts the Name of an ARK, or nil.
func (ms Minters) Covering(naan, name string) *Compiled {
	for _, m := range ms {
		if m.tmpl.check && m.naan == naan && strings.HasPrefix(name, m.prefix) && len(name) > len(m.prefix) {
			return m
		}
	}
	return nil
}

// Key returns the identifier of the n-th name.
func (m *Compiled) Key(n uint64) string {
	name := m.prefix + m.tmpl.name(n)
	if m.tmpl.check {
		name += string(NCDA(m.naan + "/" + name))
	}
	return "ark:" + m.naan + "/" + name
}

// Bounded reports whether the minter's names are finite.
func (m *Compiled) Bounded() bool { return m.tmpl.bounded() }

// Size returns how many names a bounded minter has.
func (m *Compiled) Size() uint64 { return m.tmpl.size }

// Counter and issued name the minter's counters in the store: the next
// sequence number, and (random templates) how many names it has issued.
func (m *Compiled) Counter() string { return "mint:" + m.Shoulder }
func (m *Compiled) issued() string  { return "issued:" + m.Shoulder }

// Lookup is what minting asks of the tables: whether they assign a key.
// table.Table is one.
type Lookup interface {
	Lookup(key string) (*table.Assignment, bool)
}

// Mint mints n names (1 to MintMax) with m, storing them in st; a name that taken
// assigns is skipped. It counts what it minted, and a template that ran out,
// in the process's metrics. See Handler.Mint for bind and by.
func Mint(ctx context.Context, m *Compiled, st store.Store, taken Lookup, n int, by string, bind func(key string) (store.Binding, error)) ([]string, error) {
	mc := minting{m: m, store: st, table: taken, by: by, bind: bind}
	var keys []string
	var err error
	if m.tmpl.order == 'r' {
		keys, err = mc.random(ctx, n)
	} else {
		keys, err = mc.sequential(ctx, n)
	}
	metrics.Counters.Minted.WithLabelValues(m.Shoulder).Add(float64(len(keys)))
	if errors.Is(err, ErrSpaceExhausted) {
		metrics.Counters.MintsFull.WithLabelValues(m.Shoulder).Inc()
	}
	return keys, err
}

// minting is one Mint call.
type minting struct {
	m     *Compiled
	store store.Store
	table Lookup
	by    string
	bind  func(key string) (store.Binding, error)
}

// sequential mints n names in order, skipping those taken.
func (mc *minting) sequential(ctx context.Context, n int) ([]string, error) {
	var out []string
	size := mc.m.tmpl.size
	for len(out) < n {
		need := uint64(n - len(out))
		if mc.m.tmpl.bounded() {
			next, err := mc.store.Count(ctx, mc.m.Counter(), 0)
			if err != nil {
				return out, err
			}
			if next+need > size {
				return out, fmt.Errorf("%s: %w (%d of %d left, %d asked)", mc.m.Shoulder, ErrSpaceExhausted, size-min(next, size), size, need)
			}
		}
		first, err := mc.store.Count(ctx, mc.m.Counter(), need)
		if err != nil {
			return out, err
		}
		var keys []string
		for i := range need {
			if mc.m.tmpl.bounded() && first+i >= size {
				break // a concurrent Mint took the last names
			}
			keys = append(keys, mc.m.Key(first+i))
		}
		if len(keys) == 0 {
			return out, fmt.Errorf("%s: %w", mc.m.Shoulder, ErrSpaceExhausted)
		}
		got, err := mc.reserve(ctx, keys)
		out = append(out, got...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// random mints n names drawn at random, drawing again where one is
// taken, at most randomDraws times a name.
func (mc *minting) random(ctx context.Context, n int) ([]string, error) {
	size := mc.m.tmpl.size
	var out []string
	draws := n * randomDraws
	for len(out) < n {
		issued, err := mc.store.Count(ctx, mc.m.issued(), 0)
		if err != nil {
			return out, err
		}
		need := n - len(out)
		if issued+uint64(need) > size || draws < need {
			return out, fmt.Errorf("%s: %w (%d of %d issued)", mc.m.Shoulder, ErrSpaceExhausted, issued, size)
		}
		keys := make([]string, 0, need)
		seen := map[string]bool{}
		for len(keys) < need {
			v, err := rand.Int(rand.Reader, new(big.Int).SetUint64(size))
			if err != nil {
				return out, err
			}
			draws--
			if k := mc.m.Key(v.Uint64()); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
		got, err := mc.reserve(ctx, keys)
		out = append(out, got...)
		if err != nil {
			return out, err
		}
		if _, err := mc.store.Count(ctx, mc.m.issued(), uint64(len(got))); err != nil {
			return out, err
		}
	}
	return out, nil
}

// reserve stores keys that are free, with their bindings, and returns
// those it stored. A key a table assigns is never stored.
func (mc *minting) reserve(ctx context.Context, keys []string) ([]string, error) {
	bs := make([]store.Binding, 0, len(keys))
	for _, k := range keys {
		if _, assigned := mc.table.Lookup(k); assigned {
			continue
		}
		b := store.Binding{}
		if mc.bind != nil {
			var err error
			if b, err = mc.bind(k); err != nil {
				return nil, err
			}
		}
		b.Key = k
		bs = append(bs, b)
	}
	ok, err := mc.store.Reserve(ctx, bs, mc.by)
	if err != nil {
		return nil, err
	}
	var got []string
	for i, stored := range ok {
		if stored {
			got = append(got, bs[i].Key)
		}
	}
	return got, nil
}
