package docs

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddyserver/caddy/v2"
)

// The marks a console block of README.md or docs/ may have on the line
// above it. Without one, every command of the block must be a request to
// the example site (TestDocsHTTPSamplesAreRealAnswers replays them).
const (
	// apiTranscriptMark: the block is run, command by command, in a shell
	// against the API site whose Caddyfile the same page gives
	// (TestDocsAPITranscriptsAreRealRuns).
	apiTranscriptMark = "<!-- replayed against the API site above -->"
	// checkedTranscriptMark: the same, each command run again until it
	// prints what the sample shows (at most a minute), since it shows what
	// the target checker finds in the background
	// (TestDocsCheckedTargetsTranscriptsAreRealRuns). Such a block's
	// commands must be safe to repeat.
	checkedTranscriptMark = "<!-- replayed against the API site above, once its targets are checked -->"
)

// transcriptMarks are the marks of the blocks replayed in a shell.
var transcriptMarks = []string{apiTranscriptMark, checkedTranscriptMark}

// notReplayedMark: the block is not replayed, for the reason given.
var notReplayedMark = regexp.MustCompile(`^<!-- not replayed: (\S.*) -->$`)

// The API site of the transcripts, as the docs' Caddyfile addresses it.
const apiSampleSite = "localhost:9180"

// Every console block is replayed, or says why not: a block without a
// mark must consist of requests to the example site, so that no sample
// escapes the check unseen.
func TestDocsConsoleBlocksAreReplayedOrMarked(t *testing.T) {
	t.Chdir(caddytest.ModuleRoot(t))
	for _, file := range docFiles(t) {
		for _, f := range fileFences(t, file) {
			marked := slices.Contains(transcriptMarks, f.before) || notReplayedMark.MatchString(f.before)
			if f.lang != "console" {
				if marked {
					t.Errorf("%s: a transcript mark above a %q block", f.where(), f.lang)
				}
				continue
			}
			if marked {
				continue
			}
			cmds := transcript(f)
			if len(cmds) == 0 {
				t.Errorf("%s: a console block without a command", f.where())
			}
			for _, c := range cmds {
				if _, err := parseCurl(c.cmd); err != nil {
					t.Errorf("%s:%d: $ %s: not replayed (%v): make it a request to %s, or mark the block %q or %q",
						f.file, c.line, c.cmd, err, exampleSite, apiTranscriptMark, "<!-- not replayed: <reason> -->")
				}
			}
		}
	}
}

// shellSession is a bash that runs a transcript's commands one at a time,
// so that what one sets (a variable, a file) is there for the next.
type shellSession struct {
	t     *testing.T
	dir   string
	stdin io.WriteCloser
	lines chan string
	n     int
}

func startShell(t *testing.T, dir string, env []string) *shellSession {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc")
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, w, w
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	s := &shellSession{t: t, dir: dir, stdin: stdin, lines: make(chan string, 64)}
	go func() {
		br := bufio.NewReader(r)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				s.lines <- line
			}
			if err != nil {
				close(s.lines)
				return
			}
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		r.Close()
	})
	return s
}

// run runs one command line, its stdin empty and its stderr with its
// stdout, and returns what it printed.
func (s *shellSession) run(line string) string {
	s.t.Helper()
	s.n++
	end := fmt.Sprintf("--- end of command %d ---", s.n)
	if _, err := fmt.Fprintf(s.stdin, "{ %s\n} </dev/null 2>&1\nprintf '\\n%s\\n'\n", line, end); err != nil {
		s.t.Fatal(err)
	}
	var out strings.Builder
	timeout := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				s.t.Fatalf("$ %s: the shell ended; it printed:\n%s", line, out.String())
			}
			if l == end+"\n" {
				return strings.TrimSuffix(out.String(), "\n")
			}
			out.WriteString(l)
		case <-timeout:
			s.t.Fatalf("$ %s: no end after 60 s; it printed:\n%s", line, out.String())
		}
	}
}

// rfc3339 matches what may be an RFC 3339 time.
var rfc3339 = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)

// timePrecision is the mark of an RFC 3339 time: its precision, which
// a sample must show as the run does. Go writes a time's fraction without
// its trailing zeros: up to 6 digits is a time kept to the microsecond
// (the stores'), 7 to 9 to the nanosecond.
func timePrecision(s string) string {
	n := 0 // the fraction's digits, after "2006-01-02T15:04:05."
	if len(s) > 19 && s[19] == '.' {
		n = len(strings.TrimLeft(s[20:], "0123456789"))
		n = len(s) - 20 - n
	}
	switch {
	case n == 0:
		return "<time, seconds>"
	case n <= 6:
		return "<time, microseconds>"
	}
	return "<time, nanoseconds>"
}

// maskTranscript replaces what follows the clock with a mark: an RFC 3339
// time anywhere, by its precision (timePrecision), the value of a Date header line that is an HTTP date,
// and the Content-Length of a body that holds a time (its fraction of a
// second has as many digits as it needs) or is not shown (curl -o).
func maskTranscript(out string) string {
	if head, body, ok := strings.Cut(out, "\n\n"); ok || strings.HasPrefix(out, "HTTP/") {
		if strings.HasPrefix(head, "HTTP/") && (strings.TrimSpace(body) == "" || rfc3339.MatchString(body)) {
			head = regexp.MustCompile(`(?m)^Content-Length: \d+$`).ReplaceAllString(head, "Content-Length: <length>")
			if ok {
				out = head + "\n\n" + body
			} else {
				out = head
			}
		}
	}
	out = rfc3339.ReplaceAllStringFunc(out, func(s string) string {
		if _, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return timePrecision(s)
		}
		return s
	})
	return regexp.MustCompile(`(?m)^Date: (.*)$`).ReplaceAllStringFunc(out, func(line string) string {
		if _, err := time.Parse(time.RFC1123, strings.TrimPrefix(line, "Date: ")); err == nil {
			return "Date: <time>"
		}
		return line
	})
}

// startDocsAPISite runs the API site of the page file (its caddyfile
// block for http://localhost:9180) in a real Caddy, on a free loopback
// port, in dir: the store's file, the key file (the page's key file
// sample, as api-keys.txt) and table.json (assigning ark:12345/t1) are
// there. It returns the port.
func startDocsAPISite(t *testing.T, file, dir string) string {
	t.Helper()
	var src, keys string
	for _, f := range fileFences(t, file) {
		switch {
		case f.lang == "caddyfile" && strings.Contains(f.body, "\nhttp://"+apiSampleSite+" {\n"):
			src = f.body
		case f.lang == "" && strings.HasPrefix(f.body, "# name   sha256-hex   scopes\n"):
			keys = f.body
		}
	}
	if src == "" || keys == "" {
		t.Fatalf("%s: no Caddyfile for http://%s or no key file sample: the transcripts marked %q need both", file, apiSampleSite, apiTranscriptMark)
	}
	const global = "{\n\tadmin off\n\tpersist_config off\n}\n"
	if !strings.HasPrefix(src, global) {
		t.Fatalf("%s: the API site's Caddyfile no longer starts with %q: the transcript check must follow it", file, global)
	}
	port := strconv.Itoa(caddytest.FreePort(t))
	src = caddytest.GlobalOptions + strings.TrimPrefix(src, global)
	src = strings.Replace(src, "\nhttp://"+apiSampleSite+" {\n", "\nhttp://localhost:"+port+" {\n\tbind 127.0.0.1\n", 1)
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("Caddyfile", src)
	write("api-keys.txt", keys)
	write("table.json", `{"entries": [{"id": "ark:12345/t1", "target": "https://repo.example.org/t1"}]}`+"\n")
	cfg, err := caddytest.AdaptCaddyfile(src, filepath.Join(dir, "Caddyfile"))
	if err != nil {
		t.Fatal(err)
	}
	if err := caddy.Load(cfg, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = caddy.Stop() })
	return port
}

// The transcripts of the API marked apiTranscriptMark are run in order,
// each page's in one bash, in a fresh directory, against a real Caddy
// running the page's API Caddyfile with a new store, and with `caddy`
// the binary of ./cmd/caddy: what each command prints (stdout and
// stderr) must be what the sample shows after it. The site answers on a
// free port, written as localhost:9180 in the commands and the output,
// and the directory is written /srv/ark in the output; RFC 3339 times,
// Date headers and the Content-Length of a body with a time or not shown
// are compared by their form only; a
// `cat` of a file the directory does not have shows a file the reader
// wrote, so the check writes it; trailing blank lines are not compared.
func TestDocsAPITranscriptsAreRealRuns(t *testing.T) {
	replayTranscripts(t, apiTranscriptMark, 0)
}

// replayTranscripts replays the console blocks marked mark, as
// TestDocsAPITranscriptsAreRealRuns says; with patience > 0, a command
// whose output differs is run again every half second until it matches
// or patience has passed.
func replayTranscripts(t *testing.T, mark string, patience time.Duration) {
	t.Chdir(caddytest.ModuleRoot(t))
	byFile := map[string][]fence{}
	var files []string
	for _, file := range docFiles(t) {
		for _, f := range fileFences(t, file) {
			if f.lang == "console" && f.before == mark {
				if byFile[file] == nil {
					files = append(files, file)
				}
				byFile[file] = append(byFile[file], f)
			}
		}
	}
	if len(files) == 0 {
		t.Fatalf("no transcript marked %q found in README.md or docs/", mark)
	}
	bin := caddytest.Binary(t)
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			dir := t.TempDir()
			port := startDocsAPISite(t, file, dir)
			sh := startShell(t, dir, []string{
				"PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
				"HOME=" + dir, "LANG=C", "TZ=UTC",
			})
			real := "localhost:" + port
			for _, f := range byFile[file] {
				for _, c := range transcript(f) {
					where := fmt.Sprintf("%s:%d", f.file, c.line)
					want := strings.TrimRight(c.want, "\n")
					if name, ok := strings.CutPrefix(c.cmd, "cat "); ok && !strings.ContainsAny(name, " ;|&<>$") {
						path := filepath.Join(dir, name)
						if _, err := os.Stat(path); os.IsNotExist(err) {
							if err := os.WriteFile(path, []byte(want+"\n"), 0o600); err != nil {
								t.Fatal(err)
							}
						}
					}
					run := func() string {
						got := strings.ReplaceAll(sh.run(strings.ReplaceAll(c.cmd, apiSampleSite, real)), "\r\n", "\n")
						got = strings.ReplaceAll(strings.ReplaceAll(got, real, apiSampleSite), dir+string(filepath.Separator), "/srv/ark/")
						return strings.TrimRight(got, "\n")
					}
					got := run()
					for end := time.Now().Add(patience); maskTranscript(got) != maskTranscript(want) && time.Now().Before(end); {
						time.Sleep(500 * time.Millisecond)
						got = run()
					}
					if maskTranscript(got) != maskTranscript(want) {
						t.Errorf("%s: $ %s\nthe sample shows:\n%s\nthe run prints:\n%s", where, c.cmd, want, got)
					}
				}
			}
		})
	}
}
