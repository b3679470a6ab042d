package download

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/ezid/anvl"
)

// BenchmarkDownload writes downloads of b.N records of ten elements, as
// the store's would be, in each format, gzip: the cost of a record
// between the store and the file.
func BenchmarkDownload(b *testing.B) {
	for _, form := range []string{"format=anvl", "format=xml", "format=csv&column=_id&column=_target&column=erc.who&column=_mappedTitle"} {
		b.Run(form, func(b *testing.B) {
			values, _ := url.ParseQuery(form)
			rq, err := ParseRequest(values)
			if err != nil {
				b.Fatal(err)
			}
			rq.Select.Owners = []string{"alice"}
			src := func(ctx context.Context, fn func(*anvl.Record) error) error {
				for i := range b.N {
					r := anvl.Record{ID: fmt.Sprintf("ark:/12345/x5%08d", i), Elements: []anvl.Element{
						{Name: "_owner", Value: "alice"}, {Name: "_ownergroup", Value: "lib"},
						{Name: "_created", Value: "1300000000"}, {Name: "_updated", Value: "1300086400"},
						{Name: "_target", Value: "https://repo.example.org/items/1?view=full&lang=en"},
						{Name: "_profile", Value: "erc"}, {Name: "_status", Value: "public"}, {Name: "_export", Value: "yes"},
						{Name: "erc.what", Value: "Item: a photograph\non two lines"}, {Name: "erc.who", Value: "Example Museum; Curie, Marie"},
					}}
					if err := fn(&r); err != nil {
						return err
					}
				}
				return nil
			}
			j := &job{rq: rq, src: src, name: "bench"}
			b.ReportAllocs()
			b.ResetTimer()
			if _, err := j.write(context.Background(), b.TempDir(), time.Now()); err != nil {
				b.Fatal(err)
			}
		})
	}
}
