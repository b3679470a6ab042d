package table

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

func TestTableReadsJSONAsEncodingJSONWould(t *testing.T) {
	forEachTableForm(t, func(t *testing.T, load tableForm) {
		path := testkit.WriteFile(t, "t.json", " {\n\t\"entries\" :[ {\"id\":\"ark:12345/x\\u0035\",\"target\":\"https:\\/\\/e.org\\/a?b=1&c=\\u00e9\"} ,\n"+
			`{"target": "/p", "id": "urn:example:a", "status": 200, "passthrough": false, "meta": {"who": "K\u00fcnze \ud83d\ude00", "what": "say \"hi\"\n"}},`+"\n"+
			`{"id": "ark:12345/g", "status": 410, "meta": {}}`+"\n]}\n")
		tb, err := load(t, []string{path}, nil)
		if err != nil {
			t.Fatal(err)
		}
		x5, ok := tb.Lookup("ark:12345/x5")
		if !ok || x5.Target != "https://e.org/a?b=1&c=é" || x5.Status != 302 || !x5.Passthrough {
			t.Errorf("ark:12345/x5: %+v %v", x5, ok)
		}
		urn, ok := tb.Lookup("urn:example:a")
		if !ok || urn.Target != "/p" || urn.Status != 200 || urn.Passthrough || urn.Meta["who"] != "Künze 😀" || urn.Meta["what"] != "say \"hi\"\n" {
			t.Errorf("urn:example:a: %+v %v", urn, ok)
		}
		if g, ok := tb.Lookup("ark:12345/g"); !ok || g.Status != 410 || g.Target != "" {
			t.Errorf("ark:12345/g: %+v %v", g, ok)
		}
		if tb.Len() != 3 {
			t.Errorf("len %d", tb.Len())
		}
	})
}

func TestTableSyntaxErrorsGiveTheLine(t *testing.T) {
	forEachTableForm(t, func(t *testing.T, load tableForm) {
		for content, want := range map[string]string{
			"{\"entries\": [\n{\"id\": \"ark:12345/x\" \"target\": \"/x\"}]}":                   ":2: entry 0: invalid JSON: expected ',' or '}'",
			"{\"entries\": [\n{\"id\": \"ark:12345/x\", \"target\": \"/x\"},\n]}":               ":3: entry 1: invalid JSON: expected '{'",
			"{\"entries\": [{\"id\": \"ark:12345/x\", \"status\": \"302\"}]}":                   "entry 0: status",
			"{\"entries\": [{\"id\": \"ark:12345/x\", \"passthrough\": 1}]}":                    "passthrough \"1\"",
			"{\"entries\": [{\"id\": \"ark:12345/x\", \"meta\": {\"who\": 1}}]}":                "meta \"who\": the value must be a string",
			"{\"entries\": [{\"id\": \"ark:12345/x\", \"target\": \"/x}]}":                      "unexpected end of file",
			"{\"entries\": [{\"id\": \"ark:12345/\tx\", \"target\": \"/x\"}]}":                  "control character in a string",
			"{\"entries\": [{\"id\": \"ark:12345/x\", \"target\": \"/\\q\"}]}":                  "invalid escape",
			"{\"entries\": []}\n{\"entries\": []}":                                              ":2: data after",
			"{\"entries\": [{\"id\": \"ark:12345/x\", \"target\": \"/x\"}],\"x\":1}":            `found the key "x" after "entries"`,
			"{\"entries\": [{\"id\": \"ark:12345/x\", \"target\": \"/x\", \"status\": +302}]}":  `entry 0: status "+302": not an integer`,
			"{\"entries\": [{\"id\": \"ark:12345/x\", \"target\": \"/x\", \"status\": 0302}]}":  `entry 0: status "0302": not an integer`,
			"{\"entries\": [{\"id\": \"ark:12345/x\", \"target\": \"/x\", \"status\": 302.0}]}": `entry 0: status "302.0": not an integer`,
			"{\"entries\": [{\"id\": \"ark:12345/x\", \"target\": \"/x\", \"status\": 3e2}]}":   `entry 0: status "3e2": not an integer`,
			"{\"entries\": [{\"id\": \"ark:12345/x\", \"target\": \"/x\", \"status\": nil}]}":   `entry 0: status "nil": not an integer`,
			"{\"entries\": [{\"id\": \"ark:12345/x\", \"target\": nul}]}":                       "entry 0: target: invalid JSON: expected a value",
			"[]": "found a list, not an object",
			"":   "the file is empty",
		} {
			path := testkit.WriteFile(t, "bad.json", content)
			_, err := load(t, []string{path}, nil)
			if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), path+":") {
				t.Errorf("%q: got %v, want %s...%s", content, err, path, want)
			}
		}
	})
}

// null means absent for target, status, passthrough and meta, as it does
// for encoding/json.
func TestTableReadsNullAsAbsent(t *testing.T) {
	forEachTableForm(t, func(t *testing.T, load tableForm) {
		path := testkit.WriteFile(t, "null.json", `{"entries": [
			{"id": "ark:12345/n", "target": "/n", "status": null, "passthrough": null, "meta": null},
			{"id": "ark:12345/g", "target": null, "status": 410},
			{"id": "ark:12345/m", "target": "https://e.org/m", "status": 303, "passthrough": null, "meta": null}]}`)
		tb, err := load(t, []string{path}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if a, ok := tb.Lookup("ark:12345/n"); !ok || a.Target != "/n" || a.Status != 200 || !a.Passthrough || a.Meta != nil {
			t.Errorf("ark:12345/n: %+v %v", a, ok)
		}
		if a, ok := tb.Lookup("ark:12345/g"); !ok || a.Target != "" || a.Status != 410 {
			t.Errorf("ark:12345/g: %+v %v", a, ok)
		}
		if a, ok := tb.Lookup("ark:12345/m"); !ok || a.Status != 303 || !a.Passthrough || a.Meta != nil {
			t.Errorf("ark:12345/m: %+v %v", a, ok)
		}
	})
}

func TestTableConflictsAcrossFilesNameBoth(t *testing.T) {
	forEachTableForm(t, func(t *testing.T, load tableForm) {
		a := testkit.WriteFile(t, "a.json", `{"entries": [{"id": "ark:12345/x5", "target": "/a"}]}`)
		b := testkit.WriteFile(t, "b.json", `{"entries": [{"id": "ark:12345/q1", "target": "/q"}, {"id": "ark:/12345/x-5", "target": "/b"}]}`)
		_, err := load(t, []string{a, b}, nil)
		if err == nil || !strings.Contains(err.Error(), b+":1: entry 1") || !strings.Contains(err.Error(), "already assigned by "+a) {
			t.Fatalf("got %v", err)
		}
		_, err = load(t, []string{a}, []Entry{{ID: "ark:12345/x-5", Target: "/inline"}})
		if err == nil || !strings.Contains(err.Error(), "entries[0]") || !strings.Contains(err.Error(), a) {
			t.Fatalf("inline conflict: got %v", err)
		}
	})
}

// The index must find every key it holds, and nothing else, through many
// growths.
func TestTableIndexFindsEveryKeyAndNothingElse(t *testing.T) {
	forEachTableForm(t, func(t *testing.T, load tableForm) {
		const n = 50_000
		rng := rand.New(rand.NewPCG(1, 2))
		var sb strings.Builder
		sb.WriteString(`{"entries": [`)
		keys := make([]string, n)
		for i := range keys {
			keys[i] = fmt.Sprintf("ark:12345/b%d%x", i, rng.Uint32())
			if i > 0 {
				sb.WriteString(",\n")
			}
			fmt.Fprintf(&sb, `{"id": %q, "target": "/t/%d"}`, keys[i], i)
		}
		sb.WriteString("]}")
		tb, err := load(t, []string{testkit.WriteFile(t, "big.json", sb.String())}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range keys {
			if a, ok := tb.Lookup(k); !ok || a.Target != fmt.Sprintf("/t/%d", i) {
				t.Fatalf("%s: %+v %v", k, a, ok)
			}
			if _, ok := tb.Lookup(k + "x"); ok {
				t.Fatalf("%sx found", k)
			}
		}
		if tb.Len() != n {
			t.Fatalf("len %d", tb.Len())
		}
	})
}

func TestConflictsNameTheEntryIndexOfTheFileAfterSkippedDuplicates(t *testing.T) {
	a := testkit.WriteFile(t, "a.json", `{"entries": [
		{"id": "ark:12345/a1", "target": "/a"},
		{"id": "ark:12345/a-1", "target": "/a"},
		{"id": "ark:12345/a-1", "target": "/a"},
		{"id": "ark:12345/b2", "target": "/b"}]}`)
	_, err := Load([]string{a}, []Entry{{ID: "ark:12345/b-2", Target: "/c"}})
	if err == nil || !strings.Contains(err.Error(), a+" entry 3 ") {
		t.Fatalf("got %v, want the conflict named as %s entry 3", err, a)
	}
}

// Escapes must decode as encoding/json decodes them; for surrogates: a
// high and a low surrogate in a row make one code point; any other
// surrogate is U+FFFD, and the escape after it is decoded on its own.
func TestTableDecodesEscapesAsEncodingJSON(t *testing.T) {
	forEachTableForm(t, func(t *testing.T, load tableForm) {
		values := []string{
			`\uD83D\uDE00`, `\ud83d\ude00`, `\uDBFF\uDFFF`, `\uD800\u0041`, `\uDC00\uDC00`,
			`\uDE00\uD83D`, `\uD83D\uD83D\uDE00`, `\uD800\u00e9`, `\uD800\\u0041`, `\uD800\n`,
			`\uD83Dx`, `x\uD83D`, `\uDC00`, `\uD800\uD800`, `\u0000\u00e9\/`, `\b\f\n\r\t\"\\\/`,
		}
		var sb strings.Builder
		sb.WriteString(`{"entries": [{"id": "ark:12345/s", "target": "/s", "meta": {`)
		for i, v := range values {
			if i > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, `"k%d": "%s"`, i, v)
		}
		sb.WriteString("}}]}")
		tb, err := load(t, []string{testkit.WriteFile(t, "s.json", sb.String())}, nil)
		if err != nil {
			t.Fatal(err)
		}
		a, ok := tb.Lookup("ark:12345/s")
		if !ok {
			t.Fatal("ark:12345/s not found")
		}
		for i, v := range values {
			var want string
			if err := json.Unmarshal([]byte(`"`+v+`"`), &want); err != nil {
				t.Fatalf("%s: %v", v, err)
			}
			if got := a.Meta[fmt.Sprintf("k%d", i)]; got != want {
				t.Errorf("%s: got %+q, want %+q", v, got, want)
			}
		}
	})
}

// An escape split by the end of the reader's 64 KiB buffer must decode as
// one read whole: each escape is placed to start 1 to 12 bytes before it.
func TestTableEscapesAcrossTheBufferBoundary(t *testing.T) {
	forEachTableForm(t, func(t *testing.T, load tableForm) {
		const boundary = 1 << 16
		for _, escape := range []string{`\u00e9`, `\uD83D\uDE00`, `\uD800\u0041`, `\"`, `\n`} {
			var want string
			if err := json.Unmarshal([]byte(`"`+escape+`"`), &want); err != nil {
				t.Fatal(err)
			}
			for back := 1; back <= 12; back++ {
				head := `{"entries": [{"id": "ark:12345/e", "target": "/e", "meta": {"v": `
				space := strings.Repeat(" ", boundary-back-len(head)-len(`"ab`))
				pad := "ab"
				content := head + space + `"` + pad + escape + "z\"}},\n" +
					strings.Repeat(`{"id": "ark:12345/f", "target": "/f"},`+"\n", 10) + `{"id": "ark:12345/g", "target": "/g"}]}`
				tb, err := load(t, []string{testkit.WriteFile(t, "b.json", content)}, nil)
				if err != nil {
					t.Fatalf("%s at %d: %v", escape, boundary-back, err)
				}
				if a, ok := tb.Lookup("ark:12345/e"); !ok || a.Meta["v"] != pad+want+"z" {
					t.Errorf("%s at %d: got ...%+q", escape, boundary-back, a.Meta["v"][len(pad)-2:])
				}
				if a, ok := tb.Lookup("ark:12345/g"); !ok || a.Target != "/g" {
					t.Errorf("%s at %d: ark:12345/g: %+v %v", escape, boundary-back, a, ok)
				}
			}
		}
	})
}

// A small table, such as a Caddyfile's maps, must not take a whole 4 MiB
// arena chunk.
func TestSmallTableArenaIsSmall(t *testing.T) {
	entries := make([]Entry, 10)
	for i := range entries {
		entries[i] = Entry{ID: fmt.Sprintf("ark:12345/s%d", i), Target: fmt.Sprintf("/s/%d", i)}
	}
	tb, err := load([]string{testkit.WriteTable(t, entries)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	size := 0
	for _, c := range tb.arena.chunks {
		size += cap(c)
	}
	if size > 1<<16 {
		t.Errorf("10 entries take %d bytes of arena chunks", size)
	}
}

// Arena chunks grow from 64 KiB to 4 MiB; a pair larger than the next
// chunk gets a chunk of its own size, and bytes never move once written.
func TestArenaChunksGrowAndBytesStay(t *testing.T) {
	var ar arena
	type added struct {
		off  uint32
		a, b string
		at   *byte // where a's first byte was written
	}
	var all []added
	add := func(a, b string) {
		off, ok := ar.add(a, b)
		if !ok {
			t.Fatal("the arena is full")
		}
		all = append(all, added{off, a, b, unsafe.StringData(ar.str(off, len(a)))})
	}
	add(strings.Repeat("k", 65535), strings.Repeat("t", 65535)) // larger than the first chunk
	for i := range 200_000 {
		add(fmt.Sprintf("ark:12345/a%d", i), fmt.Sprintf("/t/%d", i))
		if i%50_000 == 0 {
			add(strings.Repeat("K", 65535), strings.Repeat("T", 65535))
		}
	}
	for _, x := range all {
		if got := ar.str(x.off, len(x.a)); got != x.a || unsafe.StringData(got) != x.at {
			t.Fatalf("%.20s... moved or changed", x.a)
		}
		if got := ar.str(x.off+uint32(len(x.a)), len(x.b)); got != x.b {
			t.Fatalf("%.20s...: target %.20s...", x.a, got)
		}
	}
	for i, c := range ar.chunks {
		size := 1 << min(16+i, arenaChunkBits)
		if cap(c) < size || cap(c) > max(size, 2*65535) {
			t.Errorf("chunk %d: capacity %d, want %d, or 2*65535 for a large pair", i, cap(c), size)
		}
	}
	if cap(ar.chunks[0]) != 2*65535 || cap(ar.chunks[len(ar.chunks)-1]) != 1<<arenaChunkBits {
		t.Errorf("chunk capacities: first %d, last %d", cap(ar.chunks[0]), cap(ar.chunks[len(ar.chunks)-1]))
	}
}
