// Command gentable writes a synthetic caddy-ark table for the load tests:
// realistic ARKs (NAAN, shoulder, betanumeric blade, some qualifiers and
// variants), unique by construction, in the JSON table format
//
//	{"entries": [{"id": "ark:12345/x5wf6789", "target": "https://..."}, ...]}
//
// and optionally the matching Caddy map+redir snippet (-caddy-map), a list
// of the ids in normal form for bench/wrk/arks.lua (-keys) and the files
// that in-place targets point at (-site).
//
// The same -n, -seed, -naans and -shoulders give the same ids whatever
// -kind is, so a redirect table and an in-place table can be compared.
//
//	go run ./bench/gentable -n 1000000 -kind redirect -o /tmp/arks.json -keys /tmp/keys.txt
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// betanumeric is the NOID alphabet: digits and consonants except l.
const betanumeric = "0123456789bcdfghjkmnpqrstvwxz"

const (
	bladeLen = 8
	// bladeSpace is 29^8, the number of distinct blades.
	bladeSpace = 29 * 29 * 29 * 29 * 29 * 29 * 29 * 29
)

var variantSuffixes = []string{"en", "fr", "de", "pdf", "html", "txt", "jpg", "xml", "tif", "v2"}

type config struct {
	n          int
	out        string
	seed       uint64
	kind       string
	naans      []string
	shoulders  int
	targetBase string
	objects    int
	spell      float64
	qualified  float64
	variants   float64
	caddyMap   string
	keys       string
	keysMax    int
	site       string
}

func main() {
	var c config
	var naans string
	flag.IntVar(&c.n, "n", 1000, "number of entries")
	flag.StringVar(&c.out, "o", "-", "table file to write (- for stdout)")
	flag.Uint64Var(&c.seed, "seed", 1, "random seed (same seed, same ids)")
	flag.StringVar(&c.kind, "kind", "redirect", "targets: redirect (absolute URLs, 302), inplace (local /objects/... paths), mixed (redirects, 303 with meta, in place)")
	flag.StringVar(&naans, "naans", "12345", "comma-separated NAANs the ids are spread over")
	flag.IntVar(&c.shoulders, "shoulders", 12, "number of distinct shoulders (letters then one digit, e.g. x5, b2, fk4)")
	flag.StringVar(&c.targetBase, "target-base", "https://repo.example.org/", "prefix of redirect targets")
	flag.IntVar(&c.objects, "objects", 1000, "number of distinct files in-place targets point at (/objects/o<i>.html)")
	flag.Float64Var(&c.spell, "spell", 0.1, "fraction of table ids written in a non-normal equivalent spelling (ark:/, hyphens, variant order)")
	flag.Float64Var(&c.qualified, "qualified", 0.15, "fraction of ids with a qualifier path (/c2/s4...)")
	flag.Float64Var(&c.variants, "variants", 0.10, "fraction of ids with variant suffixes (.en.pdf)")
	flag.StringVar(&c.caddyMap, "caddy-map", "", "also write the equivalent Caddy map+redir snippet here (redirect entries only), for `import` in a site block")
	flag.StringVar(&c.keys, "keys", "", "also write the ids in normal form, one per line, for bench/wrk/arks.lua")
	flag.IntVar(&c.keysMax, "keys-max", 1000000, "at most this many keys in -keys (an even sample over the whole table)")
	flag.StringVar(&c.site, "site", "", "also create the files in-place targets point at under this directory")
	flag.Parse()
	c.naans = strings.Split(naans, ",")
	if err := run(&c); err != nil {
		fmt.Fprintln(os.Stderr, "gentable:", err)
		os.Exit(1)
	}
}

// writer is a buffered output file.
type writer struct {
	f *os.File
	*bufio.Writer
}

func create(path string) (*writer, error) {
	if path == "-" {
		return &writer{os.Stdout, bufio.NewWriterSize(os.Stdout, 1<<20)}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &writer{f, bufio.NewWriterSize(f, 1<<20)}, nil
}

func (w *writer) close() error {
	err := w.Flush()
	if w.f != os.Stdout {
		err = errors.Join(err, w.f.Close())
	}
	return err
}

func run(c *config) error {
	if c.n < 0 || c.n > bladeSpace {
		return fmt.Errorf("-n must be between 0 and %d", bladeSpace)
	}
	switch c.kind {
	case "redirect", "inplace", "mixed":
	default:
		return fmt.Errorf("-kind %q: want redirect, inplace or mixed", c.kind)
	}
	for _, naan := range c.naans {
		if naan == "" || strings.Trim(strings.ToLower(naan), "0123456789bcdfghjkmnpqrstvwxz") != "" {
			return fmt.Errorf("NAAN %q: want betanumeric characters", naan)
		}
	}
	if c.objects < 1 {
		c.objects = 1
	}
	if c.shoulders < 1 {
		c.shoulders = 1
	}

	// Ids depend only on the seed, never on -kind.
	idRNG := rand.New(rand.NewPCG(c.seed, 0x61726b))        // "ark"
	kindRNG := rand.New(rand.NewPCG(c.seed, 0x6b696e64))    // "kind"
	spellRNG := rand.New(rand.NewPCG(c.seed, 0x7370656c6c)) // "spell"
	shoulders := makeShoulders(idRNG, c.shoulders)
	perm := newFeistel(c.seed)

	table, err := create(c.out)
	if err != nil {
		return err
	}
	var cmap, keys *writer
	if c.caddyMap != "" {
		if cmap, err = create(c.caddyMap); err != nil {
			return err
		}
		fmt.Fprintf(cmap, "# Caddy map+redir equivalent of a gentable table: %d entries, seed %d, kind %s.\n", c.n, c.seed, c.kind)
		fmt.Fprintf(cmap, "# One linear scan of the map per request (vars evaluates {ark_target} once).\n")
		fmt.Fprintf(cmap, "map {path} {ark_target} {\n\tdefault \"\"\n")
	}
	keyStride := 1
	if c.keys != "" {
		if keys, err = create(c.keys); err != nil {
			return err
		}
		if c.keysMax > 0 && c.n > c.keysMax {
			keyStride = (c.n + c.keysMax - 1) / c.keysMax
		}
	}

	table.WriteString("{\"entries\": [\n")
	var id, name, spelled, line []byte
	for i := 0; i < c.n; i++ {
		naan := c.naans[idRNG.IntN(len(c.naans))]
		shoulder := shoulders[idRNG.IntN(len(shoulders))]

		// name: shoulder, blade, then maybe a qualifier and variants
		name = append(name[:0], shoulder...)
		name = appendBlade(name, perm.permute(uint64(i)))
		if idRNG.Float64() < c.qualified {
			name = append(name, "/c"...)
			name = strconv.AppendInt(name, int64(1+idRNG.IntN(9)), 10)
			if idRNG.IntN(2) == 0 {
				name = append(name, "/s"...)
				name = strconv.AppendInt(name, int64(1+idRNG.IntN(20)), 10)
			}
		}
		var variants []string
		if idRNG.Float64() < c.variants {
			a := idRNG.IntN(len(variantSuffixes))
			variants = append(variants, variantSuffixes[a])
			if idRNG.IntN(2) == 0 {
				b := idRNG.IntN(len(variantSuffixes) - 1)
				if b >= a {
					b++
				}
				variants = append(variants, variantSuffixes[b])
			}
			sort.Strings(variants) // normal form: sorted by code point
			for _, v := range variants {
				name = append(name, '.')
				name = append(name, v...)
			}
		}

		// normal form
		id = append(id[:0], "ark:"...)
		id = append(id, strings.ToLower(naan)...)
		id = append(id, '/')
		id = append(id, name...)

		// what the table says
		spelledID := id
		if spellRNG.Float64() < c.spell {
			spelled = respell(spelled[:0], naan, name, variants, spellRNG)
			spelledID = spelled
		}
		line = append(line[:0], "{\"id\": \""...)
		line = append(line, spelledID...)
		line = append(line, "\", "...)
		kind := c.kind
		status := 0
		if kind == "mixed" {
			switch r := kindRNG.IntN(100); {
			case r < 60:
				kind = "redirect"
			case r < 70:
				kind, status = "redirect", 303
			default:
				kind = "inplace"
			}
		}
		var target []byte
		if kind == "redirect" {
			target = append(append([]byte(c.targetBase), naan...), '/')
			target = append(target, name...)
		} else {
			target = fmt.Appendf(nil, "/objects/o%d.html", i%c.objects)
		}
		line = append(line, "\"target\": \""...)
		line = append(line, target...)
		line = append(line, '"')
		if status != 0 {
			line = append(line, ", \"status\": "...)
			line = strconv.AppendInt(line, int64(status), 10)
			line = append(line, ", \"meta\": {\"what\": \"description of "...)
			line = append(line, id...)
			line = append(line, "\", \"when\": \"2019-05-17\"}"...)
		}
		line = append(line, '}')
		if i < c.n-1 {
			line = append(line, ',')
		}
		line = append(line, '\n')
		table.Write(line)

		if cmap != nil && kind == "redirect" && status == 0 {
			cmap.WriteString("\t/")
			cmap.Write(id)
			cmap.WriteByte(' ')
			cmap.Write(target)
			cmap.WriteByte('\n')
		}
		if keys != nil && i%keyStride == 0 {
			keys.Write(id)
			keys.WriteByte('\n')
		}
	}
	table.WriteString("]}\n")

	err = table.close()
	if cmap != nil {
		cmap.WriteString("}\nvars ark_hit {ark_target}\n@ark_hit not vars ark_hit \"\"\nredir @ark_hit {vars.ark_hit} 302\n")
		err = errors.Join(err, cmap.close())
	}
	if keys != nil {
		err = errors.Join(err, keys.close())
	}
	if err != nil {
		return err
	}
	if c.site != "" {
		return writeSite(c.site, c.objects)
	}
	return nil
}

// makeShoulders returns n distinct shoulders following the first-digit
// convention: one to three betanumeric letters, then one digit.
func makeShoulders(r *rand.Rand, n int) []string {
	const letters = "bcdfghjkmnpqrstvwxz"
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		k := 1 + r.IntN(2)
		if r.IntN(8) == 0 {
			k = 3
		}
		b := make([]byte, 0, k+1)
		for range k {
			b = append(b, letters[r.IntN(len(letters))])
		}
		b = append(b, byte('1'+r.IntN(9)))
		if s := string(b); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// appendBlade appends v < bladeSpace as bladeLen betanumeric characters.
func appendBlade(b []byte, v uint64) []byte {
	var buf [bladeLen]byte
	for i := bladeLen - 1; i >= 0; i-- {
		buf[i] = betanumeric[v%29]
		v /= 29
	}
	return append(b, buf[:]...)
}

// respell writes an equivalent but non-normal spelling of ark:naan/name:
// an ark:/ or ARK:/ label, hyphens, upper-case NAAN letters, variants in
// another order.
func respell(b []byte, naan string, name []byte, variants []string, r *rand.Rand) []byte {
	switch r.IntN(3) {
	case 0:
		b = append(b, "ark:/"...)
	case 1:
		b = append(b, "ARK:/"...)
	default:
		b = append(b, "ark:"...)
	}
	b = append(b, strings.ToUpper(naan)...)
	b = append(b, '/')
	base := name
	if len(variants) > 1 {
		// drop the sorted suffixes and write them back reversed
		cut := len(name)
		for _, v := range variants {
			cut -= len(v) + 1
		}
		base = name[:cut]
	}
	start := len(b)
	b = append(b, base...)
	// a hyphen or two inside the shoulder and blade (never at a '/' or '.')
	for range 1 + r.IntN(2) {
		p := start + 1 + r.IntN(len(base)-1)
		if b[p-1] == '/' || b[p-1] == '.' || b[p] == '/' || b[p] == '.' {
			continue
		}
		b = append(b[:p+1], b[p:]...)
		b[p] = '-'
	}
	if len(variants) > 1 {
		for j := len(variants) - 1; j >= 0; j-- {
			b = append(b, '.')
			b = append(b, variants[j]...)
		}
	}
	return b
}

// feistel is a keyed permutation of [0, bladeSpace): a balanced Feistel
// network on 40 bits, cycle-walked back into range. It makes blades unique
// by construction yet random-looking.
type feistel struct{ keys [4]uint64 }

func newFeistel(seed uint64) *feistel {
	var f feistel
	s := seed
	for i := range f.keys {
		s = splitmix(s + uint64(i) + 0x9e3779b97f4a7c15)
		f.keys[i] = s
	}
	return &f
}

func (f *feistel) permute(v uint64) uint64 {
	for {
		l, r := v>>20, v&(1<<20-1)
		for _, k := range f.keys {
			l, r = r, l^(splitmix(r^k)&(1<<20-1))
		}
		v = l<<20 | r
		if v < bladeSpace {
			return v
		}
	}
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	hi, lo := bits.Mul64(x^(x>>30), 0xbf58476d1ce4e5b9)
	x = hi ^ lo
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// writeSite creates dir/objects/o<i>.html for i < n.
func writeSite(dir string, n int) error {
	objects := filepath.Join(dir, "objects")
	if err := os.MkdirAll(objects, 0o755); err != nil {
		return err
	}
	for i := range n {
		body := fmt.Sprintf("<!doctype html>\n<html><head><title>Object o%d</title></head>\n<body><h1>Object o%d</h1><p>A digital object served in place by file_server for an ARK in the caddy-ark load test.</p></body></html>\n", i, i)
		if err := os.WriteFile(filepath.Join(objects, fmt.Sprintf("o%d.html", i)), []byte(body), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "index.html"), []byte("<!doctype html>\n<p>caddy-ark load test site</p>\n"), 0o644)
}
