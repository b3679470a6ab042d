package table

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/keyhash"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// referenceSlots builds the index of keys, the records' keys in order, as
// one table in memory: linear probing, inserted by hash then record.
func referenceSlots(keys []string, slotCount int) []byte {
	type ent struct {
		hash uint64
		rec  int
	}
	ents := make([]ent, len(keys))
	for i, k := range keys {
		ents[i] = ent{keyhash.String(k), i + 1}
	}
	slices.SortFunc(ents, func(x, y ent) int {
		if x.hash != y.hash {
			if x.hash < y.hash {
				return -1
			}
			return 1
		}
		return x.rec - y.rec
	})
	slots := make([]uint64, slotCount)
	mask := uint64(slotCount - 1)
	for _, e := range ents {
		tag := e.hash >> 32
		i := tag & mask
		for slots[i] != 0 {
			i = (i + 1) & mask
		}
		slots[i] = tag<<32 | uint64(e.rec)
	}
	b := make([]byte, 0, slotCount*CompiledSlotSize)
	for _, s := range slots {
		b = binary.LittleEndian.AppendUint64(b, s)
	}
	return b
}

// A table sorted in many runs on disk compiles to the same bytes as in
// one run, and its index is the one a single table in memory gives,
// duplicates dropped and entries wrapping past the last slot included.
func TestCompileInRunsIsTheSame(t *testing.T) {
	const n, slotCount = 3000, 4096 // 3000 and a few distinct keys take 4096 slots
	var ids, keys []string
	for i := range n {
		ids = append(ids, fmt.Sprintf("ark:12345/b%d", i))
	}
	// Keys whose home is the last slots, so that their probes wrap around
	// to the first ones.
	wrap := 0
	for i := 0; wrap < 6; i++ {
		id := fmt.Sprintf("ark:12345/w%d", i)
		e := Entry{ID: id, Target: "https://example.org/" + id}
		key, _, _, err := e.Compile()
		if err != nil {
			t.Fatal(err)
		}
		if keyhash.String(key)>>32&(slotCount-1) >= slotCount-2 {
			ids = append(ids, id)
			wrap++
		}
	}
	var src strings.Builder
	src.WriteString(`{"entries": [`)
	for i, id := range ids {
		e := Entry{ID: id, Target: "https://example.org/" + id}
		key, _, _, err := e.Compile()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, key)
		fmt.Fprintf(&src, `{"id": %q, "target": %q},`, id, e.Target)
		if i%7 == 0 { // two duplicates, dropped
			fmt.Fprintf(&src, `{"id": %q, "target": %q},`, strings.ToUpper(id[:3])+id[3:], e.Target)
			fmt.Fprintf(&src, `{"id": %q, "target": %q},`, id, e.Target)
		}
	}
	src.WriteString(`{"id": "ark:12345/last", "target": "https://example.org/last"}]}`)
	keys = append(keys, "ark:12345/last")
	path := testkit.WriteFile(t, "src.json", src.String())

	dir := t.TempDir()
	one, runs := filepath.Join(dir, "one.arkt"), filepath.Join(dir, "runs.arkt")
	if _, err := Compile([]string{path}, one); err != nil {
		t.Fatal(err)
	}
	var phases []string
	st, err := CompileWith([]string{path}, runs, CompileOptions{MaxMemory: 2048, TempDir: t.TempDir(), Progress: func(p CompileProgress) {
		if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
			phases = append(phases, p.Phase)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Distinct != len(keys) || st.Entries != len(keys)+2*((n+wrap+6)/7) {
		t.Errorf("got %+v for %d keys", st, len(keys))
	}
	if want := []string{"read", "check", "sort", "index", "write"}; !slices.Equal(phases, want) {
		t.Errorf("phases %v, want %v", phases, want)
	}
	a, err := os.ReadFile(one)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(runs)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("compiled in runs, the file differs from the one compiled in one run")
	}
	want := referenceSlots(keys, slotCount)
	got := a[CompiledHeaderSize : CompiledHeaderSize+len(want)]
	if !bytes.Equal(got, want) {
		t.Fatal("the index differs from the one built in memory")
	}
	if binary.LittleEndian.Uint64(got) == 0 {
		t.Error("no entry wrapped around to the first slot")
	}
	tb, err := OpenCompiled(runs, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if _, ok := tb.find(k, nil); !ok {
			t.Fatalf("%s not found", k)
		}
	}
}
