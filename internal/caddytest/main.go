package caddytest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// Main is the TestMain of an end-to-end test package. The packages run
// beside each other, each in a process of its own, so Main gives its
// process data and config directories of its own (XDG_DATA_HOME and
// XDG_CONFIG_HOME: where Caddy processes the tests start keep their
// storage and config, where the in-process Caddy keeps its instance ID,
// and where a bolt store without a path goes; the in-process Caddy's
// storage and autosave paths were fixed when it initialized, and the
// harness sets storage or turns persistence off itself), runs the
// package's tests, then removes what they shared for the whole process
// (those directories, the PostgreSQL cluster of testkit.SharedPostgres,
// the caddy binary of Binary) and exits with the tests' status. HOME is
// left alone: the Go build cache that Binary uses is found from it.
func Main(m *testing.M) {
	dir, err := os.MkdirTemp("", "caddy-ark-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for env, sub := range map[string]string{"XDG_DATA_HOME": "data", "XDG_CONFIG_HOME": "config"} {
		if err := os.Setenv(env, filepath.Join(dir, sub)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	code := m.Run()
	testkit.RemoveSharedPostgres()
	RemoveBinary()
	os.RemoveAll(dir)
	os.Exit(code)
}
