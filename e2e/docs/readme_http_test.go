package docs

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/docsample"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddyserver/caddy/v2"
)

// The example site's address, as examples/Caddyfile serves it and as the
// samples of README.md and docs/ request it.
const exampleSite = "http://localhost:8080"

// transcriptCommand is one `$ ` line of a console block and the output
// shown after it.
type transcriptCommand struct {
	line int    // the command's line in its file
	cmd  string // without the "$ "
	want string // the lines after it, up to the next "$ " line or the block's end
}

// transcript returns the commands of a console block.
func transcript(f fence) []transcriptCommand {
	var out []transcriptCommand
	for i, line := range strings.SplitAfter(f.body, "\n") {
		if cmd, ok := strings.CutPrefix(line, "$ "); ok {
			out = append(out, transcriptCommand{line: f.line + 1 + i, cmd: strings.TrimSuffix(cmd, "\n")})
		} else if len(out) > 0 {
			out[len(out)-1].want += line
		}
	}
	return out
}

// curlRequest is what a sample's curl command line asks for.
type curlRequest struct {
	method  string
	target  string // the request-target: path and query, as written
	header  [][2]string
	include bool // -i or -I: the status line and headers are printed
}

// parseCurl reads a sample's curl command line: the options -s, -i, -I
// (and their combinations such as -si), -H <header> and one URL on the
// example site.
func parseCurl(cmd string) (curlRequest, error) {
	words, err := docsample.Words(cmd)
	if err != nil {
		return curlRequest{}, err
	}
	if len(words) == 0 || words[0] != "curl" {
		return curlRequest{}, fmt.Errorf("not a curl command")
	}
	req := curlRequest{method: http.MethodGet}
	url := ""
	for i := 1; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "-H" && i+1 < len(words):
			name, value, ok := strings.Cut(words[i+1], ":")
			if !ok {
				return curlRequest{}, fmt.Errorf("header %q has no colon", words[i+1])
			}
			req.header = append(req.header, [2]string{name, strings.TrimSpace(value)})
			i++
		case strings.HasPrefix(w, "-") && len(w) > 1 && strings.Trim(w[1:], "siI") == "":
			if strings.Contains(w, "i") {
				req.include = true
			}
			if strings.Contains(w, "I") {
				req.include = true
				req.method = http.MethodHead
			}
		case strings.HasPrefix(w, "-"):
			return curlRequest{}, fmt.Errorf("the option %s is not one the sample check runs (-s, -i, -I, -H)", w)
		case url != "":
			return curlRequest{}, fmt.Errorf("more than one URL")
		default:
			url = w
		}
	}
	rest, ok := strings.CutPrefix(url, exampleSite)
	if !ok || (rest != "" && rest[0] != '/') {
		return curlRequest{}, fmt.Errorf("the URL %q is not on the example site %s", url, exampleSite)
	}
	if rest == "" {
		rest = "/"
	}
	req.target = rest
	return req, nil
}

// startExampleSite runs examples/Caddyfile in a real Caddy, on a free
// loopback port instead of 8080. Nothing else changes: base_url still
// says http://localhost:8080, so the answers are those a reader running
// the example site gets.
func startExampleSite(t *testing.T) string {
	t.Helper()
	src := testkit.ReadFile(t, "examples/Caddyfile")
	port := strconv.Itoa(caddytest.FreePort(t))
	if strings.Count(src, "\n:8080 {\n") != 1 {
		t.Fatal("examples/Caddyfile no longer has one site at :8080: the sample check must follow it")
	}
	src = strings.Replace(src, "\n:8080 {\n", "\n:"+port+" {\n\tbind 127.0.0.1\n", 1)
	abs, err := filepath.Abs("examples/Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := caddytest.AdaptCaddyfile(caddytest.GlobalOptions+"\n"+src, abs)
	if err != nil {
		t.Fatal(err)
	}
	if err := caddy.Load(cfg, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = caddy.Stop() })
	// The example's map entries changed, for OAI-PMH, when the config was
	// loaded; a list holds what changed before the second it is asked in.
	testkit.NextSecond()
	return "127.0.0.1:" + port
}

// curl sends req to addr as curl does (Host localhost:8080, Accept */*,
// the request-target as written) and returns what curl prints: with
// -i/-I the status line and the header lines as the server sent them, in
// its order, then a blank line; then the body.
func curl(t *testing.T, addr string, req curlRequest) string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: localhost:8080\r\nUser-Agent: curl/8.5.0\r\n", req.method, req.target)
	accept := true
	for _, h := range req.header {
		if strings.EqualFold(h[0], "Accept") {
			accept = false
		}
		fmt.Fprintf(&b, "%s: %s\r\n", h[0], h[1])
	}
	if accept {
		b.WriteString("Accept: */*\r\n")
	}
	b.WriteString("\r\n")
	if _, err := io.WriteString(conn, b.String()); err != nil {
		t.Fatal(err)
	}
	// The header block is kept as sent (net/http would sort it); the body
	// is read by net/http, which knows its framing.
	br := bufio.NewReader(conn)
	var head bytes.Buffer
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("%s %s: %v", req.method, req.target, err)
		}
		head.WriteString(line)
		if line == "\r\n" {
			break
		}
	}
	resp, err := http.ReadResponse(bufio.NewReader(io.MultiReader(bytes.NewReader(head.Bytes()), br)), &http.Request{Method: req.method})
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	out := ""
	if req.include {
		out = strings.ReplaceAll(head.String(), "\r\n", "\n")
	}
	return out + string(body)
}

// varyingHeader matches the header lines whose values follow the clock or
// the checkout (a file's modification time), not the code.
var varyingHeader = regexp.MustCompile(`(?m)^(Date|Last-Modified|Etag): (.*)$`)

// oaiTime matches the OAI-PMH elements whose values follow the clock or
// the checkout: the response's date, and the datestamps of records, which
// are when their table was written or loaded.
var oaiTime = regexp.MustCompile(`<(responseDate|datestamp|earliestDatestamp)>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ</`)

// maskVarying replaces the values of Date, Last-Modified and Etag in the
// header block of a curl -i/-I output with a mark, when they have the
// form of such a value; a value of another form stays, so it differs.
// In the body, it marks the times of OAI-PMH answers (oaiTime).
func maskVarying(out string, include bool) string {
	out = oaiTime.ReplaceAllString(out, "<$1><time></")
	if !include {
		return out
	}
	head, body, _ := strings.Cut(out, "\n\n")
	head = varyingHeader.ReplaceAllStringFunc(head, func(line string) string {
		m := varyingHeader.FindStringSubmatch(line)
		if m[1] == "Etag" {
			if regexp.MustCompile(`^(W/)?"[^"]*"$`).MatchString(m[2]) {
				return m[1] + ": <entity tag>"
			}
			return line
		}
		if _, err := http.ParseTime(m[2]); err == nil {
			return m[1] + ": <time>"
		}
		return line
	})
	return head + "\n\n" + body
}

// Every request to the example site shown in README.md and docs/ (a
// `$ curl … http://localhost:8080/…` line of a console block) is sent to a
// real Caddy running examples/Caddyfile, and what the sample shows after
// it must be what curl prints: status line, every header in the order
// sent, body. Only the values of Date, Last-Modified and Etag, which
// follow the clock and the checkout, are compared by their form; trailing
// blank lines are not compared (a body may end without a newline).
func TestDocsHTTPSamplesAreRealAnswers(t *testing.T) {
	t.Chdir(caddytest.ModuleRoot(t))
	checkDocsHTTPSamples(t, startExampleSite(t))
}

// checkDocsHTTPSamples sends every request to the example site shown in
// README.md and docs/ to the example site at addr and compares the
// answers with the samples. The working directory is the module's root.
func checkDocsHTTPSamples(t *testing.T, addr string) {
	t.Helper()
	checked := 0
	for _, file := range docFiles(t) {
		for _, f := range fileFences(t, file) {
			for _, c := range transcript(f) {
				if !strings.HasPrefix(c.cmd, "curl ") || !strings.Contains(c.cmd, exampleSite) {
					continue
				}
				where := fmt.Sprintf("%s:%d", f.file, c.line)
				if f.lang != "console" {
					t.Errorf("%s: a request to the example site in a %q block: mark the block console, so that the sample is checked", where, f.lang)
					continue
				}
				req, err := parseCurl(c.cmd)
				if err != nil {
					t.Errorf("%s: %s: %v", where, c.cmd, err)
					continue
				}
				checked++
				got := curl(t, addr, req)
				want := strings.TrimRight(c.want, "\n")
				if maskVarying(strings.TrimRight(got, "\n"), req.include) != maskVarying(want, req.include) {
					t.Errorf("%s: $ %s\nthe sample shows:\n%s\nthe example site answers:\n%s", where, c.cmd, want, strings.TrimRight(got, "\n"))
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no request to the example site found in README.md or docs/")
	}
}
