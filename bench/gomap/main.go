// Command gomap is the physical limit that bench/run.sh measures
// caddy-ark's redirects against: a bare net/http server holding the
// table's identifiers, in normal form, in a Go map, answering each with
// the same 302 that caddy-ark sends for an identifier without metadata on
// a site without base_url (Location, the one-line Link header of its
// signposting, Vary: Accept),
// with no normalization of the request and no Caddy.
//
//	go run ./bench/gomap -table redirect.json -addr 127.0.0.1:8080
package main

import (
	"encoding/json"
	"flag"
	"log"
	"net/http"
	"os"

	"github.com/caddy-ark/caddy-ark/normalize"
)

// entry is one line of a JSON table, as bench/gentable writes it.
type entry struct {
	ID     string `json:"id"`
	Target string `json:"target"`
}

func main() {
	tablePath := flag.String("table", "", "the JSON table (bench/gentable -kind redirect)")
	addr := flag.String("addr", "127.0.0.1:8080", "the address to listen on")
	flag.Parse()
	targets, err := load(*tablePath)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("%d identifiers", len(targets))
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.URL.Path[1:]
		target, ok := targets[key]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		hdr := w.Header()
		url := "/" + key
		hdr["Link"] = []string{"<" + url + `>; rel="cite-as", <` + url + `?info=linkset-json>; rel="linkset"; type="application/linkset+json", <` +
			url + `?info=linkset>; rel="linkset"; type="application/linkset", <` + url + `?info>; rel="describedby"; type="text/plain"`}
		hdr["Location"] = []string{target}
		hdr["Vary"] = []string{"Accept"}
		w.WriteHeader(http.StatusFound)
	})
	log.Fatal(http.ListenAndServe(*addr, handler))
}

// load reads the table at path into a map from each identifier's normal
// form to its target.
func load(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var table struct {
		Entries []entry `json:"entries"`
	}
	if err := json.NewDecoder(f).Decode(&table); err != nil {
		return nil, err
	}
	targets := make(map[string]string, len(table.Entries))
	for _, e := range table.Entries {
		key, err := normalize.Key(e.ID)
		if err != nil {
			return nil, err
		}
		targets[key] = e.Target
	}
	return targets, nil
}
