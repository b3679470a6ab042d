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

// built is the caddy binary Binary builds, once per test process; dir is
// the directory of its own that RemoveBinary removes, when it is not in Go's
// build cache.
var built struct {
	once sync.Once
	path string
	dir  string
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
		root := ModuleRoot(t)
		if built.path = cachedBinary(gobin, root); built.path != "" {
			return
		}
		built.dir, built.err = os.MkdirTemp("", "caddy-ark-cmd")
		if built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "caddy")
		build := exec.Command(gobin, "build", "-o", built.path, "./cmd/caddy")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			built.err = errors.New(string(out))
		}
	})
	if built.err != nil {
		t.Fatalf("go build ./cmd/caddy: %v", built.err)
	}
	return built.path
}

// cachedBinary returns the path of ./cmd/caddy in Go's build cache, where
// `go run` keeps the executables it builds, so the end-to-end packages,
// each in a process of its own, link it once between them instead of once
// each: `go run -exec echo` prints the executable's path instead of running
// it. The first run of a new build prints a temporary path, removed as it
// returns, and caches the executable; the second prints the cached one.
// "" when the cache gives no path (GOCACHE=off, an error): Binary then
// builds into a directory of its own.
func cachedBinary(gobin, root string) string {
	out, err := exec.Command(gobin, "env", "GOCACHE").Output()
	cache := strings.TrimSpace(string(out))
	if err != nil || cache == "" || cache == "off" {
		return ""
	}
	for range 2 {
		run := exec.Command(gobin, "run", "-exec", "echo", "./cmd/caddy")
		run.Dir = root
		out, err := run.Output()
		if err != nil {
			return ""
		}
		path := strings.TrimSpace(string(out))
		if strings.HasPrefix(path, cache+string(filepath.Separator)) {
			return path
		}
	}
	return ""
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

// RemoveBinary removes the binary Binary built into a directory of its own,
// if it did.
func RemoveBinary() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}
