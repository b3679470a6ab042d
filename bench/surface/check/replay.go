package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"time"
)

// answer is one request of the corpus and the raw answer to it.
type answer struct {
	request
	Raw string `json:"raw"` // status line, header block and body as sent, Date masked
}

// dateLine matches the Date header line, whose value follows the clock.
var dateLine = regexp.MustCompile(`(?m)^Date: ([^\r\n]*)\r$`)

// replayCmd sends every request of -corpus to -addr, each on its own
// connection as curl does (Host localhost:8080, User-Agent curl/8.5.0,
// Accept */* unless the request has one, Connection: close), and
// writes the answers, as sent, to -out as JSON lines.
func replayCmd(args []string) error {
	fl := flag.NewFlagSet("replay", flag.ExitOnError)
	addr := fl.String("addr", "", "host:port")
	corpus := fl.String("corpus", "", "the corpus")
	out := fl.String("out", "", "the answers")
	maskTimes := fl.Bool("mask-times", false, "mask RFC 3339 times in bodies (and so the body's framing)")
	_ = fl.Parse(args)
	in, err := os.Open(*corpus)
	if err != nil {
		return err
	}
	defer in.Close()
	w, err := os.Create(*out)
	if err != nil {
		return err
	}
	defer w.Close()
	enc := json.NewEncoder(w)
	dec := json.NewDecoder(bufio.NewReader(in))
	n, nMasked := 0, 0
	for {
		var r request
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			return err
		}
		raw, err := send(*addr, r)
		if err != nil {
			return fmt.Errorf("%s %s: %v", r.Method, r.Target, err)
		}
		if *maskTimes {
			var masked bool
			if raw, masked, err = maskBodyTimes(raw, r.Method); err != nil {
				return fmt.Errorf("%s %s: %v", r.Method, r.Target, err)
			} else if masked {
				nMasked++
			}
		}
		if err := enc.Encode(answer{r, raw}); err != nil {
			return err
		}
		n++
	}
	fmt.Printf("replayed %d requests", n)
	if *maskTimes {
		fmt.Printf(", %d answers with times in the body masked", nMasked)
	}
	fmt.Println()
	return nil
}

// send sends r and returns the whole answer as read until the server
// closes the connection, with the Date header's value masked.
func send(addr string, r request) (string, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: localhost:8080\r\nUser-Agent: curl/8.5.0\r\n", r.Method, r.Target)
	accept := true
	for _, h := range r.Header {
		if name, _, _ := strings.Cut(h, ":"); strings.EqualFold(name, "Accept") {
			accept = false
		}
		b.WriteString(h + "\r\n")
	}
	if accept {
		b.WriteString("Accept: */*\r\n")
	}
	if r.Body != "" {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(r.Body))
	}
	b.WriteString("Connection: close\r\n\r\n" + r.Body)
	if _, err := io.WriteString(conn, b.String()); err != nil {
		return "", err
	}
	raw, err := io.ReadAll(conn)
	if err != nil {
		return "", err
	}
	return dateLine.ReplaceAllStringFunc(string(raw), func(line string) string {
		if _, err := http.ParseTime(dateLine.FindStringSubmatch(line)[1]); err == nil {
			return "Date: <date>\r"
		}
		return line
	}), nil
}

// bodyTime matches an RFC 3339 time in UTC as the API writes a change's
// time ("updated"), which follows the clock.
var bodyTime = regexp.MustCompile(`"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"`)

// maskBodyTimes replaces the times in raw's body with "<time>". Since a
// time's length varies (trailing zeros of the fraction are left out),
// such a body is written unframed (chunked encoding undone) and the
// Content-Length value is masked too; an answer without a time in its
// body is returned as it is.
func maskBodyTimes(raw, method string) (string, bool, error) {
	head, _, _ := strings.Cut(raw, "\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(raw)), &http.Request{Method: method})
	if err != nil {
		return "", false, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !bodyTime.Match(body) {
		return raw, false, err
	}
	lines := strings.Split(head, "\r\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "Content-Length: ") {
			lines[i] = "Content-Length: <length>"
		}
	}
	return strings.Join(lines, "\r\n") + "\r\n\r\n" + bodyTime.ReplaceAllString(string(body), `"<time>"`), true, nil
}
