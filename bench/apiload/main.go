// Command apiload measures caddy-ark's management API on loopback, one
// mode a run, and prints one line "APILOAD key=value ..." for
// bench/api.sh:
//
//	fill: binds -n identifiers ark:12345/b<i> in one streamed bulk request
//	      and writes them to -keys, for bench/wrk/arks.lua
//	import: binds -n identifiers ark:12345/u<i> in one POST import (the
//	      store's bulk load), in order or with -order random in a random
//	      order, and writes them to -keys; with -table, posts that table
//	      file instead
//	bind: -n sequential PUTs of new identifiers; latency percentiles
//	mint: -n names minted -per a request from -c concurrent clients;
//	      names/s, and a check that no name was handed out twice
//
// The key is read from $ARK_API_KEY.
//
//	go run ./bench/apiload -api http://127.0.0.1:9080/api/ark -mode bind -n 1000
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

func main() {
	api := flag.String("api", "", "the API's URL")
	mode := flag.String("mode", "", "fill, import, bind or mint")
	n := flag.Int("n", 1000, "how many identifiers")
	conc := flag.Int("c", 16, "concurrent clients (mint)")
	per := flag.Int("per", 1, "names per mint request (mint, at most 1000)")
	shoulder := flag.String("shoulder", "ark:12345/m1", "the shoulder to mint under")
	keys := flag.String("keys", "", "where fill and import write the bound identifiers")
	prefix := flag.String("prefix", "ark:12345/p", "what bind puts before its counter")
	order := flag.String("order", "", "import: \"random\" for the identifiers in a random order")
	tableFile := flag.String("table", "", "import: a table file to post instead of ark:12345/u<i>")
	flag.Parse()
	c := &client{api: strings.TrimSuffix(*api, "/"), key: os.Getenv("ARK_API_KEY"), http: &http.Client{Timeout: 30 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: *conc}}}
	var err error
	switch *mode {
	case "fill":
		err = c.fill(*n, *keys)
	case "import":
		if *tableFile != "" {
			err = c.importFile(*tableFile)
		} else {
			err = c.importTable(*n, *keys, *order == "random")
		}
	case "bind":
		err = c.bind(*n, *prefix)
	case "mint":
		err = c.mint(*n, *conc, *per, *shoulder)
	default:
		err = errors.New("-mode: fill, import, bind or mint")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "apiload:", err)
		os.Exit(1)
	}
}

type client struct {
	api, key string
	http     *http.Client
}

// do sends one request and returns the body of a 2xx answer.
func (c *client) do(method, path string, body io.Reader) ([]byte, error) {
	req, err := http.NewRequest(method, c.api+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode/100 != 2 {
		err = fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, data)
	}
	return data, err
}

// streamed returns a reader of what write writes, written as it is read.
func streamed(write func(w *bufio.Writer)) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriter(pw)
		write(w)
		pw.CloseWithError(w.Flush())
	}()
	return pr
}

// importTable binds n identifiers, ark:12345/u0 and on, in one POST
// import (the store's bulk load, much faster than bulk's one write a line),
// and writes them to keys; with random, in a random order.
func (c *client) importTable(n int, keys string, random bool) error {
	out, err := os.Create(keys)
	if err != nil {
		return err
	}
	defer out.Close()
	table := streamed(func(w *bufio.Writer) {
		ids := make([]int, n)
		for i := range ids {
			ids[i] = i
		}
		if random {
			rand.New(rand.NewPCG(1, 2)).Shuffle(n, func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		}
		sep := `{"entries": [`
		for _, i := range ids {
			fmt.Fprintf(w, "%s\n"+`{"id":"ark:12345/u%d","target":"https://repo.example.org/u/%d"}`, sep, i, i)
			sep = ","
		}
		fmt.Fprint(w, "\n]}\n")
	})
	start := time.Now()
	if _, err := c.do("POST", "/import", table); err != nil {
		return err
	}
	elapsed := time.Since(start)
	w := bufio.NewWriter(out)
	for i := range n {
		fmt.Fprintf(w, "ark:12345/u%d\n", i)
	}
	fmt.Printf("APILOAD mode=import n=%d seconds=%.2f rows_per_s=%.0f\n", n, elapsed.Seconds(), float64(n)/elapsed.Seconds())
	return w.Flush()
}

// importFile posts the table file path in one POST import.
func (c *client) importFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	start := time.Now()
	data, err := c.do("POST", "/import", f)
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	var res struct{ Entries, Imported int }
	if err := json.Unmarshal(data, &res); err != nil {
		return fmt.Errorf("import result %s: %w", data, err)
	}
	fmt.Printf("APILOAD mode=import table=%s n=%d imported=%d seconds=%.2f rows_per_s=%.0f\n", path, res.Entries, res.Imported, elapsed.Seconds(), float64(res.Entries)/elapsed.Seconds())
	return nil
}

func (c *client) fill(n int, keys string) error {
	out, err := os.Create(keys)
	if err != nil {
		return err
	}
	defer out.Close()
	body := streamed(func(w *bufio.Writer) {
		for i := range n {
			fmt.Fprintf(w, `{"op":"bind","id":"ark:12345/b%d","target":"https://repo.example.org/b/%d"}`+"\n", i, i)
		}
	})
	start := time.Now()
	data, err := c.do("POST", "/bulk", body)
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	w := bufio.NewWriter(out)
	lines := 0
	for line := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		var r struct {
			ID     string
			Status int
			Error  string
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.Status/100 != 2 {
			return fmt.Errorf("bulk result %s", line)
		}
		fmt.Fprintln(w, r.ID)
		lines++
	}
	fmt.Printf("APILOAD mode=fill n=%d seconds=%.2f lines_per_s=%.0f\n", lines, elapsed.Seconds(), float64(lines)/elapsed.Seconds())
	return w.Flush()
}

func (c *client) bind(n int, prefix string) error {
	lat := make([]time.Duration, 0, n)
	run := time.Now().UnixNano()
	for i := range n {
		body := fmt.Sprintf(`{"target":"https://repo.example.org/p/%d"}`, i)
		t0 := time.Now()
		if _, err := c.do("PUT", fmt.Sprintf("/id/%s%dq%d", prefix, run%1000000, i), strings.NewReader(body)); err != nil {
			return err
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	fmt.Printf("APILOAD mode=bind n=%d p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f\n", n, pct(0.5), pct(0.9), pct(0.99), pct(1))
	return nil
}

func (c *client) mint(n, conc, per int, shoulder string) error {
	var mu sync.Mutex
	seen := make(map[string]bool, n)
	var firstErr error
	work := make(chan struct{}, n/per)
	for range n / per {
		work <- struct{}{}
	}
	close(work)
	start := time.Now()
	var wg sync.WaitGroup
	for range conc {
		wg.Go(func() {
			for range work {
				data, err := c.do("POST", fmt.Sprintf("/mint/%s?n=%d", shoulder, per), nil)
				var res struct{ IDs []string }
				if err == nil {
					err = json.Unmarshal(data, &res)
				}
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				for _, id := range res.IDs {
					if seen[id] && firstErr == nil {
						firstErr = fmt.Errorf("%s minted twice", id)
					}
					seen[id] = true
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	elapsed := time.Since(start)
	fmt.Printf("APILOAD mode=mint n=%d per=%d c=%d distinct=%d seconds=%.2f names_per_s=%.0f\n", n, per, conc, len(seen), elapsed.Seconds(), float64(len(seen))/elapsed.Seconds())
	return nil
}
