// Command targetload serves the load test of target checking
// (bench/targets.sh): it writes a table whose targets are spread over
// local origins, and runs those origins, recording how politely they were
// asked.
//
//	targetload table -n 100000 -origins 200 -port 21000 -o table.json -keys keys.txt
//	targetload origins -origins 200 -port 21000 -latency 2ms -report report.txt
//
// The origins answer every request 200 after -latency, until they get
// SIGTERM or -duration passes; then the report says how many requests
// arrived, the shortest gap between two arrivals at one origin, and the
// most requests one origin had at once. Loopback only.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: targetload table|origins [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "table":
		err = table(os.Args[2:])
	case "origins":
		err = origins(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "targetload:", err)
		os.Exit(1)
	}
}

// table writes n entries whose targets are spread round-robin over the
// origins, and their ids, one a line.
func table(args []string) error {
	fs := flag.NewFlagSet("table", flag.ExitOnError)
	n := fs.Int("n", 100000, "entries")
	count := fs.Int("origins", 200, "origins")
	port := fs.Int("port", 21000, "the first origin's port on 127.0.0.1")
	out := fs.String("o", "table.json", "the table file")
	keysOut := fs.String("keys", "keys.txt", "the ids, one a line")
	_ = fs.Parse(args)
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	defer f.Close()
	k, err := os.Create(*keysOut)
	if err != nil {
		return err
	}
	defer k.Close()
	w, kw := bufio.NewWriter(f), bufio.NewWriter(k)
	w.WriteString(`{"entries": [`)
	for i := range *n {
		if i > 0 {
			w.WriteString(",")
		}
		id := fmt.Sprintf("ark:12345/x5%08d", i)
		target := fmt.Sprintf("http://127.0.0.1:%d/item/%d", *port+i%*count, i)
		e, _ := json.Marshal(map[string]string{"id": id, "target": target})
		w.WriteString("\n")
		w.Write(e)
		kw.WriteString(id + "\n")
	}
	w.WriteString("\n]}\n")
	if err := w.Flush(); err != nil {
		return err
	}
	return kw.Flush()
}

// origin is one origin's record.
type origin struct {
	mu       sync.Mutex
	requests int
	last     time.Time
	minGap   time.Duration
	running  int
	most     int
}

func (o *origin) ServeHTTP(w http.ResponseWriter, _ *http.Request, latency time.Duration) {
	now := time.Now()
	o.mu.Lock()
	if o.requests > 0 {
		if gap := now.Sub(o.last); o.minGap == 0 || gap < o.minGap {
			o.minGap = gap
		}
	}
	o.requests++
	o.last = now
	o.running++
	o.most = max(o.most, o.running)
	o.mu.Unlock()
	time.Sleep(latency)
	o.mu.Lock()
	o.running--
	o.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// origins runs the origins until SIGTERM or the duration, then reports.
func origins(args []string) error {
	fs := flag.NewFlagSet("origins", flag.ExitOnError)
	count := fs.Int("origins", 200, "origins")
	port := fs.Int("port", 21000, "the first origin's port on 127.0.0.1")
	latency := fs.Duration("latency", 2*time.Millisecond, "how long each answer takes")
	duration := fs.Duration("duration", time.Hour, "stop after this long")
	report := fs.String("report", "", "write the report here (default: standard output)")
	_ = fs.Parse(args)
	list := make([]*origin, *count)
	for i := range list {
		o := &origin{}
		list[i] = o
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(*port+i))
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { o.ServeHTTP(w, r, *latency) })}
		go srv.Serve(l)
	}
	fmt.Println("ready")
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-stop:
	case <-time.After(*duration):
	}
	total, most, minGap, asked := 0, 0, time.Duration(0), 0
	for _, o := range list {
		o.mu.Lock()
		total += o.requests
		most = max(most, o.most)
		if o.requests > 1 {
			asked++
			if minGap == 0 || o.minGap < minGap {
				minGap = o.minGap
			}
		}
		o.mu.Unlock()
	}
	text := fmt.Sprintf("requests=%d origins_asked_twice=%d min_gap=%v most_at_once=%d\n", total, asked, minGap, most)
	if *report == "" {
		fmt.Print(text)
		return nil
	}
	return os.WriteFile(*report, []byte(text), 0o644)
}
