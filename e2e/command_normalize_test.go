package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"
)

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
		build := exec.Command(gobin, "build", "-o", caddyBin, "./cmd/caddy")
		build.Dir = caddytest.ModuleRoot(t)
		out, err := build.CombinedOutput()
		if err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("go build ./cmd/caddy: %v", buildErr)
	}
	return caddyBin
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
