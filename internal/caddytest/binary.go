package caddytest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// built is the caddy binary Binary builds, once per test process, in a
// directory of its own that RemoveBinary removes.
var built struct {
	once sync.Once
	path string
	err  error
}

// Binary builds ./cmd/caddy once per test process and returns its path:
// running the real binary proves that the `ark` command is registered.
func Binary(t *testing.T) string {
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
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "caddy-ark-cmd")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "caddy")
		build := exec.Command(gobin, "build", "-o", built.path, "./cmd/caddy")
		build.Dir = ModuleRoot(t)
		out, err := build.CombinedOutput()
		if err != nil {
			built.err = errors.New(string(out))
		}
	})
	if built.err != nil {
		t.Fatalf("go build ./cmd/caddy: %v", built.err)
	}
	return built.path
}

// RunCaddy runs the built binary with args and stdin and returns its
// output and exit status.
func RunCaddy(t *testing.T, stdin string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.Command(Binary(t), args...)
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

// RemoveBinary removes the binary Binary built, if a test asked for it.
func RemoveBinary() {
	if built.path != "" {
		os.RemoveAll(filepath.Dir(built.path))
	}
}
