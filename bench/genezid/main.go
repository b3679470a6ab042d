// Command genezid writes an EZID batch download in its ANVL format, of n
// ARKs under ark:/12345/x5, as EZID's API of this project writes one:
// records in key order, elements in ezid.Elements' order, so that the
// download of the store an import of it fills is the same bytes. One
// identifier in 50 is reserved, one in 50 unavailable, one in 10 has a
// whole-record DataCite document; values hold structural characters.
// bench/ezid-download.sh uses it for the 10^6 import and download.
//
//	go run ./bench/genezid -n 1000000 | gzip -1 > download.txt.gz
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/caddy-ark/caddy-ark/ezid/anvl"
)

func main() {
	n := flag.Int("n", 1000000, "how many identifiers")
	owner := flag.String("owner", "alice", "their _owner")
	flag.Parse()
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	var buf []byte
	for i := range *n {
		buf = buf[:0]
		if i > 0 {
			buf = append(buf, '\n')
		}
		id := fmt.Sprintf("ark:/12345/x5%08d", i)
		created := 1300000000 + int64(i)*37
		status, export := "public", "yes"
		switch i % 50 {
		case 7:
			status = "reserved"
		case 13:
			status = "unavailable | withdrawn by the author: 100% sure"
		case 21:
			export = "no"
		}
		buf = append(buf, ":: "+id+"\n"...)
		for _, e := range []anvl.Element{
			{Name: "_owner", Value: *owner},
			{Name: "_ownergroup", Value: "lib"},
			{Name: "_created", Value: fmt.Sprint(created)},
			{Name: "_updated", Value: fmt.Sprint(created + 86400)},
			{Name: "_target", Value: fmt.Sprintf("https://repo.example.org/items/%d?view=full&lang=en", i)},
			{Name: "_profile", Value: "erc"},
			{Name: "_status", Value: status},
			{Name: "_export", Value: export},
		} {
			buf = anvl.AppendElement(buf, e.Name, e.Value)
		}
		if i%10 == 3 {
			buf = anvl.AppendElement(buf, "datacite", fmt.Sprintf("<?xml version=\"1.0\"?>\n<resource xmlns=\"http://datacite.org/schema/kernel-4\"><identifier identifierType=\"ARK\">12345/x5%08d</identifier><titles><title>Item %d</title></titles></resource>", i, i))
		}
		buf = anvl.AppendElement(buf, "erc.what", fmt.Sprintf("Item %d: a photograph\non two lines", i))
		buf = anvl.AppendElement(buf, "erc.when", fmt.Sprint(1900+i%120))
		buf = anvl.AppendElement(buf, "erc.who", "Example Museum; Curie, Marie")
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
