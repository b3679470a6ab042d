package table

import (
	"slices"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// keys returns the keys seq yields, in order.
func keys(seq func(func(string, *Assignment) bool)) []string {
	var out []string
	for k := range seq {
		out = append(out, k)
	}
	return out
}

// From(n) yields what All yields after its first n, for every form of
// table: in the heap, compiled, and compiled with inline entries on top
// (one of which repeats a compiled entry and is not yielded twice).
func TestFromResumesAll(t *testing.T) {
	heap, err := Open([]string{testkit.WriteFile(t, "t.json", testkit.EveryField)}, []Entry{{ID: "ark:55555/inline", Target: "/i"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	compiled, err := Open([]string{compileFile(t, testkit.EveryField)}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	layered, err := Open([]string{compileFile(t, testkit.EveryField)}, []Entry{
		{ID: "ark:12345/x5-wf6789", Target: "https://repo.example.org/x?a=1&b=<2>"},
		{ID: "ark:55555/new", Target: "/new"}, {ID: "ark:55555/newer", Target: "/newer"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	for name, tb := range map[string]Table{"heap": heap, "compiled": compiled, "layered": layered} {
		all := keys(tb.All())
		if len(all) != tb.Len() {
			t.Fatalf("%s: All yields %d keys, Len is %d", name, len(all), tb.Len())
		}
		for n := 0; n <= len(all)+1; n++ {
			want := all[min(n, len(all)):]
			if got := keys(tb.From(n)); !slices.Equal(got, want) && (len(got) != 0 || len(want) != 0) {
				t.Errorf("%s: From(%d) = %v, want %v", name, n, got, want)
			}
		}
	}
}
