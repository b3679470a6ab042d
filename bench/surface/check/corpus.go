package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/caddy-ark/caddy-ark/internal/docsample"
)

// exampleSite is the example site's address as the samples request it.
const exampleSite = "http://localhost:8080"

// request is one request of the corpus: where it comes from, the
// method, the request-target as sent, header lines besides Host,
// User-Agent and Accept (an Accept given here replaces */*), and a body.
type request struct {
	Origin string   `json:"origin"`
	Method string   `json:"method"`
	Target string   `json:"target"`
	Header []string `json:"header,omitempty"`
	Body   string   `json:"body,omitempty"`
}

// corpusCmd prints the corpus as JSON lines (with -api, the store and
// API corpus of apiRequests instead): every curl request to the
// example site in README.md and docs/ of -repo, then the generated
// requests on the identifiers of -repo's examples/Caddyfile and
// examples/arks.json.
func corpusCmd(args []string) error {
	fl := flag.NewFlagSet("corpus", flag.ExitOnError)
	repo := fl.String("repo", "", "the checkout")
	api := fl.Bool("api", false, "print the store and API corpus instead")
	_ = fl.Parse(args)
	if *api {
		enc := json.NewEncoder(os.Stdout)
		reqs := apiRequests()
		for _, r := range reqs {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		fmt.Fprintf(os.Stderr, "Corpus: %d requests to the API and to what it writes\n", len(reqs))
		return nil
	}
	fs, err := allFences(*repo)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(os.Stdout)
	samples, skipped := 0, 0
	for _, f := range fs {
		for i, line := range strings.Split(f.body, "\n") {
			cmd, ok := strings.CutPrefix(line, "$ ")
			if !ok || !strings.HasPrefix(cmd, "curl ") || !strings.Contains(cmd, exampleSite) {
				continue
			}
			r, err := parseCurl(cmd)
			if err != nil {
				skipped++
				fmt.Fprintf(os.Stderr, "  sample not replayed: %s:%d: %v\n", f.file, f.line+1+i, err)
				continue
			}
			r.Origin = fmt.Sprintf("%s:%d", f.file, f.line+1+i)
			samples++
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
	}
	ids, err := exampleIDs(*repo)
	if err != nil {
		return err
	}
	gen := generated(ids)
	for _, r := range gen {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "Corpus: %d curl samples of README.md and docs/ (%d not replayable), %d generated requests on %d example identifiers\n", samples, skipped, len(gen), len(ids))
	return nil
}

// exampleIDs returns the identifiers the example site maps: the map
// lines of examples/Caddyfile and the entries of examples/arks.json.
func exampleIDs(repo string) ([]string, error) {
	var ids []string
	f, err := os.Open(filepath.Join(repo, "examples", "Caddyfile"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if w := strings.Fields(sc.Text()); len(w) > 1 && w[0] == "map" {
			ids = append(ids, w[1])
		}
	}
	b, err := os.ReadFile(filepath.Join(repo, "examples", "arks.json"))
	if err != nil {
		return nil, err
	}
	var table struct {
		Entries []struct {
			ID string `json:"id"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(b, &table); err != nil {
		return nil, err
	}
	for _, e := range table.Entries {
		ids = append(ids, e.ID)
	}
	return ids, sc.Err()
}

// parseCurl reads a sample's curl command line: -s, -i, -I (and their
// combinations), -H <header>, one URL on the example site; quoting with
// '…' or "…" without expansions.
func parseCurl(cmd string) (request, error) {
	words, err := docsample.Words(cmd)
	if err != nil {
		return request{}, err
	}
	r := request{Method: "GET"}
	url := ""
	for i := 1; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "-H" && i+1 < len(words):
			r.Header = append(r.Header, words[i+1])
			i++
		case strings.HasPrefix(w, "-") && len(w) > 1 && strings.Trim(w[1:], "siI") == "":
			if strings.Contains(w, "I") {
				r.Method = "HEAD"
			}
		case strings.HasPrefix(w, "-"):
			return request{}, fmt.Errorf("option %s", w)
		case url != "":
			return request{}, fmt.Errorf("more than one URL")
		default:
			url = w
		}
	}
	rest, ok := strings.CutPrefix(url, exampleSite)
	if !ok || (rest != "" && rest[0] != '/') {
		return request{}, fmt.Errorf("the URL %q is not on the example site", url)
	}
	if rest == "" {
		rest = "/"
	}
	r.Target = rest
	return r, nil
}
