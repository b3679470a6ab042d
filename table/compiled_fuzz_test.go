package table

import (
	"os"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// FuzzCompiledTable mutates a compiled file: opening it, looking keys up,
// walking it and checking it never panic, and a lookup never gives an
// answer the original file did not give (unreadable, a 503, is no answer).
func FuzzCompiledTable(f *testing.F) {
	dir := f.TempDir()
	src := dir + "/src.json"
	if err := os.WriteFile(src, []byte(testkit.EveryField), 0o644); err != nil {
		f.Fatal(err)
	}
	if _, err := Compile([]string{src}, dir+"/t.arkt"); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(dir + "/t.arkt")
	if err != nil {
		f.Fatal(err)
	}
	original, err := newCompiledTable("t.arkt", good)
	if err != nil {
		f.Fatal(err)
	}
	keys := []string{"ark:12345/x5wf6789", "ark:12345/p1", "ark:12345/e", "ark:12345/g", "ark:12345/g2",
		"ark:12345/r", "ark:12345/t", "ark:67890/s", "urn:nbn:de:101-2024", "ark:12345/absent"}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		ct, err := newCompiledTable("t.arkt", data)
		if err != nil {
			return
		}
		for _, k := range keys {
			got, ok := ct.Lookup(k)
			if !ok || got == Unreadable {
				continue
			}
			want, had := original.Lookup(k)
			if !had || !SameAssignment(got, want) {
				t.Fatalf("%s: %+v, the original has %+v %v", k, got, want, had)
			}
		}
		for range ct.All() {
		}
		_ = ct.Check()
	})
}
