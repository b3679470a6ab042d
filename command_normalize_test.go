package ark

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/caddy-ark/caddy-ark/importer"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"
)

func TestNormalizeAll(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantOut    string
		wantErr    string // every line of stderr, in order
		wantFailed int
	}{
		{
			name:    "arguments",
			args:    []string{"ark:/12-345/c37-009-31--", "ARK:/12345/x.svg.en?info#f", "urn:ISBN:0-123%2f"},
			wantOut: "ark:12345/c3700931\nark:12345/x.en.svg?info#f\nurn:isbn:0-123%2F\n",
		},
		{
			name:       "bad arguments are reported and the rest still printed",
			args:       []string{"ark:12345", "ark:12345/a", "ark:12345/b%G1"},
			wantOut:    "ark:12345/a\n",
			wantErr:    "ark:12345: not an identifier at byte 9: the ARK has no Name after its NAAN (a pseudo-ARK)\nark:12345/b%G1: invalid percent-encoding at byte 11: \"%G1\" is not %XX with two hex digits\n",
			wantFailed: 2,
		},
		{
			name:    "stdin, blank lines and CRLF",
			stdin:   "ark:/12345/x-1\r\n\n   \n\tark:12345/y..z/ \nurn:x-y:z\n",
			wantOut: "ark:12345/x1\nark:12345/y.z\nurn:x-y:z\n",
		},
		{
			name:       "stdin with bad lines",
			stdin:      "ark:12345/a\nhttp://example.org/\nark:12345/b\n",
			wantOut:    "ark:12345/a\nark:12345/b\n",
			wantErr:    "http://example.org/: not an identifier at byte 0: an identifier starts with \"ark:\" or \"urn:\"\n",
			wantFailed: 1,
		},
		{
			name:       "control characters in rejected input are quoted",
			stdin:      "ark:12345/x\x1b[31m\n",
			wantErr:    "\"ark:12345/x\\x1b[31m\": control character at byte 11: control character U+001B is not allowed\n",
			wantFailed: 1,
		},
		{
			name:    "resolver URLs stand for their identifiers",
			args:    []string{"https://n2t.net/ark:/12345/x-1?info", "http://example.org/resolver/ARK:12345/y", "https://nbn-resolving.org/URN:NBN:de:101-2024"},
			wantOut: "ark:12345/x1?info\nark:12345/y\nurn:nbn:de:101-2024\n",
		},
		{
			name:       "errors in a resolver URL count bytes from its start",
			args:       []string{"https://n2t.net/ark:12345"},
			wantErr:    "https://n2t.net/ark:12345: not an identifier at byte 25: the ARK has no Name after its NAAN (a pseudo-ARK)\n",
			wantFailed: 1,
		},
		{
			name:  "empty stdin",
			stdin: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			failed, err := normalizeAll(tt.args, strings.NewReader(tt.stdin), &out, &errOut)
			if err != nil {
				t.Fatalf("normalizeAll: %v", err)
			}
			if failed != tt.wantFailed {
				t.Errorf("failed = %d, want %d", failed, tt.wantFailed)
			}
			if out.String() != tt.wantOut {
				t.Errorf("stdout = %q, want %q", out.String(), tt.wantOut)
			}
			if errOut.String() != tt.wantErr {
				t.Errorf("stderr = %q, want %q", errOut.String(), tt.wantErr)
			}
		})
	}
}

func TestNormalizeAllArgumentsIgnoreStdin(t *testing.T) {
	var out, errOut bytes.Buffer
	if _, err := normalizeAll([]string{"ark:12345/a"}, strings.NewReader("ark:12345/b\n"), &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if out.String() != "ark:12345/a\n" {
		t.Errorf("stdout = %q, want only the argument", out.String())
	}
}

func TestNormalizeAllLineTooLong(t *testing.T) {
	var out, errOut bytes.Buffer
	long := "ark:12345/" + strings.Repeat("x", importer.MaxLineBytes)
	if _, err := normalizeAll(nil, strings.NewReader(long), &out, &errOut); err == nil {
		t.Error("a line longer than maxLineBytes: no error")
	}
}

func TestTerminalSafe(t *testing.T) {
	for in, want := range map[string]string{
		"ark:12345/x":               "ark:12345/x",
		"ark:12345/4бф3х1":          "ark:12345/4бф3х1",
		"ark:12345/a b":             "ark:12345/a b",
		"ark:12345/a\tb":            `"ark:12345/a\tb"`,
		"ark:12345/\u202ex":         `"ark:12345/\u202ex"`,
		"ark:12345/\xffx":           `"ark:12345/\xffx"`,
		"ark:12345/x\u0085y":        `"ark:12345/x\u0085y"`,
		"ark:12345/\x1b[2Jx":        `"ark:12345/\x1b[2Jx"`,
		"ark:12345/zero\u200bwidth": `"ark:12345/zero\u200bwidth"`,
	} {
		if got := terminalSafe(in); got != want {
			t.Errorf("terminalSafe(%q) = %s, want %s", in, got, want)
		}
	}
}

// runArkCommand runs the registered `ark` command in process, under a root
// command configured like Caddy's, with args after "caddy ark".
func runArkCommand(t *testing.T, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	c, ok := caddycmd.Commands()["ark"]
	if !ok {
		t.Fatal(`no "ark" command registered`)
	}
	ark := &cobra.Command{Use: c.Name + " " + c.Usage, Short: c.Short}
	c.CobraFunc(ark)
	root := &cobra.Command{Use: "caddy", SilenceUsage: true}
	root.AddCommand(ark)
	var out, errOut bytes.Buffer
	root.SetArgs(append([]string{"ark"}, args...))
	root.SetIn(strings.NewReader(stdin))
	root.SetOut(&out)
	root.SetErr(&errOut)
	err = root.Execute()
	return out.String(), errOut.String(), err
}

func TestArkCommandNormalize(t *testing.T) {
	out, _, err := runArkCommand(t, "", "normalize", "ark:/12345/x-y")
	if err != nil || out != "ark:12345/xy\n" {
		t.Errorf("normalize ark:/12345/x-y: out %q, err %v", out, err)
	}
	out, _, err = runArkCommand(t, "ark:/12345/a\nark:/12345/b\n", "normalize")
	if err != nil || out != "ark:12345/a\nark:12345/b\n" {
		t.Errorf("normalize from stdin: out %q, err %v", out, err)
	}
	out, errOut, err := runArkCommand(t, "", "normalize", "ark:12345/a", "ark:12345")
	if err == nil {
		t.Error("normalize ark:12345: no error")
	}
	if out != "ark:12345/a\n" || !strings.HasPrefix(errOut, "ark:12345: not an identifier at byte 9") {
		t.Errorf("normalize ark:12345/a ark:12345: out %q, stderr %q", out, errOut)
	}
	if strings.Contains(errOut, "Error:") {
		t.Errorf("failures reported twice: stderr %q", errOut)
	}
	if _, _, err := runArkCommand(t, "", "typo"); err == nil {
		t.Error("ark typo: no error")
	}
}

var (
	buildOnce sync.Once
	caddyBin  string
	buildErr  error
)

// caddyBinary builds ./cmd/caddy once per test run and returns its path:
// running the real binary proves that the `ark` command is registered.
func caddyBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the caddy binary; skipped with -short")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no go command to build the caddy binary with")
		}
		t.Skip("no go command to build the binary with")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "caddy-ark-cmd")
		if err != nil {
			buildErr = err
			return
		}
		caddyBin = filepath.Join(dir, "caddy")
		out, err := exec.Command(gobin, "build", "-o", caddyBin, "./cmd/caddy").CombinedOutput()
		if err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("go build ./cmd/caddy: %v", buildErr)
	}
	return caddyBin
}

// TestMain removes the binary that caddyBinary built and the shared
// PostgreSQL cluster.
func TestMain(m *testing.M) {
	code := m.Run()
	testkit.RemoveSharedPostgres()
	if caddyBin != "" {
		os.RemoveAll(filepath.Dir(caddyBin))
	}
	os.Exit(code)
}

// runCaddy runs the built binary with args and stdin and returns its
// output and exit status.
func runCaddy(t *testing.T, stdin string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.Command(caddyBinary(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		status = exit.ExitCode()
	case err != nil:
		t.Fatalf("running caddy %v: %v", args, err)
	}
	return out.String(), errOut.String(), status
}

func TestBinaryNormalize(t *testing.T) {
	tests := []struct {
		stdin      string
		args       []string
		wantOut    string
		wantErr    string
		wantStatus int
	}{
		{
			args:    []string{"ark", "normalize", "ark:/12-345/c37-009-31--", "ark:12345/x.svg.en"},
			wantOut: "ark:12345/c3700931\nark:12345/x.en.svg\n",
		},
		{
			args:       []string{"ark", "normalize", "ark:12345/ok", "ark:12,345/x"},
			wantOut:    "ark:12345/ok\n",
			wantErr:    "ark:12,345/x: ",
			wantStatus: 1,
		},
		{
			stdin:   "ark:/12345/a\n\nark:/12345/b\n",
			args:    []string{"ark", "normalize"},
			wantOut: "ark:12345/a\nark:12345/b\n",
		},
		{
			stdin:      "ark:/12345/a\nark:/12345\n",
			args:       []string{"ark", "normalize"},
			wantOut:    "ark:12345/a\n",
			wantErr:    "ark:/12345: not an identifier at byte 10",
			wantStatus: 1,
		},
		{
			args:       []string{"ark", "typo"},
			wantErr:    `unknown command "typo"`,
			wantStatus: 1,
		},
	}
	for _, tt := range tests {
		out, errOut, status := runCaddy(t, tt.stdin, tt.args...)
		if out != tt.wantOut || status != tt.wantStatus || !strings.Contains(errOut, tt.wantErr) {
			t.Errorf("caddy %v < %q:\nstdout %q, want %q\nstderr %q, want it to contain %q\nstatus %d, want %d",
				tt.args, tt.stdin, out, tt.wantOut, errOut, tt.wantErr, status, tt.wantStatus)
		}
		if tt.wantErr == "" && errOut != "" {
			t.Errorf("caddy %v: unexpected stderr %q", tt.args, errOut)
		}
	}
}
