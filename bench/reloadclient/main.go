// Command reloadclient keeps -c keep-alive connections busy with GETs (no retries,
// like wrk) for -d, and prints each connection error with its time.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	addr := flag.String("a", "127.0.0.1:23080", "address")
	conns := flag.Int("c", 50, "connections")
	dur := flag.Duration("d", 30*time.Second, "duration")
	keysFile := flag.String("k", "/tmp/hmem/keys.txt", "file of paths to request, one per line")
	flag.Parse()
	data, _ := os.ReadFile(*keysFile)
	keys := strings.Fields(string(data))
	var reqs, errs atomic.Int64
	var mu sync.Mutex
	end := time.Now().Add(*dur)
	var wg sync.WaitGroup
	for range *conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var c net.Conn
			var br *bufio.Reader
			for time.Now().Before(end) {
				if c == nil {
					var err error
					if c, err = net.Dial("tcp", *addr); err != nil {
						time.Sleep(10 * time.Millisecond)
						continue
					}
					br = bufio.NewReader(c)
				}
				k := keys[rand.IntN(len(keys))]
				_, err := fmt.Fprintf(c, "GET /%s HTTP/1.1\r\nHost: localhost\r\n\r\n", k)
				var resp *http.Response
				if err == nil {
					resp, err = http.ReadResponse(br, nil)
				}
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				if err == nil && resp.StatusCode >= 500 {
					err = fmt.Errorf("status %d", resp.StatusCode)
				}
				reqs.Add(1)
				if err != nil || resp.Close {
					if err != nil {
						errs.Add(1)
						mu.Lock()
						fmt.Printf("%s error %v\n", time.Now().Format("15:04:05.000"), err)
						mu.Unlock()
					}
					c.Close()
					c = nil
				}
			}
		}()
	}
	wg.Wait()
	fmt.Printf("requests %d errors %d\n", reqs.Load(), errs.Load())
}
