package testkit

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Cluster is a throwaway PostgreSQL server for tests: a cluster made by
// initdb in a temp dir, listening on a free loopback port and on a Unix
// socket in that dir, with trust authentication for the superuser "ark".
// Tests run as root start it as an unprivileged user (initdb refuses
// root).
type Cluster struct {
	bin  string // the directory of initdb, pg_ctl, postgres
	dir  string // the temp dir: data/, the socket, the server log
	Port int
	as   string // the user the server runs as; "" for this process's
	dbs  atomic.Int64

	frozen atomic.Bool // by Freeze, until Thaw

	settings []string // more -c name=value options of the server, for Start
}

// pgBinDir finds PostgreSQL's server binaries: Debian's
// /usr/lib/postgresql/<version>/bin, newest first, then pg_ctl on PATH.
func pgBinDir() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi > vj
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d
		}
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if _, err := os.Stat(filepath.Join(filepath.Dir(p), "initdb")); err == nil {
			return filepath.Dir(p)
		}
	}
	return ""
}

// NeedPostgres returns the PostgreSQL binaries' directory. Without them
// the test is skipped, except under CI=true, where it fails: CI installs
// them (.ci/run).
func NeedPostgres(t testing.TB) string {
	t.Helper()
	bin := pgBinDir()
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("PostgreSQL server binaries (initdb, pg_ctl) not found in /usr/lib/postgresql/*/bin or on PATH; .ci/run installs Debian's postgresql package")
		}
		t.Skip("PostgreSQL server binaries (initdb, pg_ctl) not found in /usr/lib/postgresql/*/bin or on PATH: install Debian's postgresql package to run this test")
	}
	return bin
}

// StartPostgres initdbs and starts a cluster of its own, which is stopped
// and removed when the test ends. Tests that stop or restart the server
// use it; the others share one (sharedPostgres).
func StartPostgres(t testing.TB) *Cluster {
	t.Helper()
	c, err := newPGCluster(NeedPostgres(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.remove)
	return c
}

var shared struct {
	once sync.Once
	c    *Cluster
	err  error
}

// SharedPostgres returns the cluster the tests of this package share,
// started the first time a test asks for it and removed by TestMain.
func SharedPostgres(t testing.TB) *Cluster {
	t.Helper()
	bin := NeedPostgres(t)
	shared.once.Do(func() { shared.c, shared.err = newPGCluster(bin) })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.c
}

// RemoveSharedPostgres stops and removes the shared cluster, if a test
// started it.
func RemoveSharedPostgres() {
	if shared.c != nil {
		shared.c.remove()
	}
}

// Main is the TestMain of a package whose tests may share a cluster
// (SharedPostgres): it runs them, removes the cluster, and exits with
// their code. Without it the cluster outlives the tests.
func Main(m *testing.M) {
	code := m.Run()
	RemoveSharedPostgres()
	os.Exit(code)
}

func newPGCluster(bin string, settings ...string) (c *Cluster, err error) {
	c, err = newPGDir(bin, settings...)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(c.dir)
		}
	}()
	if out, err := c.run("initdb", "-D", c.data(), "-U", "ark", "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions"); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	if err := c.Start(); err != nil {
		return nil, err
	}
	return c, nil
}

// newPGDir makes the directory of a cluster, owned by the user its server
// is to run as, and picks its port; the data directory is the caller's
// to make.
func newPGDir(bin string, settings ...string) (c *Cluster, err error) {
	c = &Cluster{bin: bin, settings: settings}
	if os.Geteuid() == 0 {
		c.as = "nobody"
		if _, err := user.Lookup("postgres"); err == nil {
			c.as = "postgres"
		}
	}
	// Not t.TempDir: its parents are private to this process's user.
	c.dir, err = os.MkdirTemp("", "ark-pg-")
	if err != nil {
		return nil, err
	}
	if c.as != "" {
		u, err := user.Lookup(c.as)
		if err != nil {
			os.RemoveAll(c.dir)
			return nil, err
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(c.dir, uid, gid); err != nil {
			os.RemoveAll(c.dir)
			return nil, err
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.RemoveAll(c.dir)
		return nil, err
	}
	c.Port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	return c, nil
}

func (c *Cluster) data() string { return filepath.Join(c.dir, "data") }

// run runs one of the cluster's binaries as the cluster's user.
func (c *Cluster) run(name string, args ...string) ([]byte, error) {
	path := filepath.Join(c.bin, name)
	var cmd *exec.Cmd
	if c.as != "" {
		cmd = exec.Command("runuser", append([]string{"-u", c.as, "--", path}, args...)...)
	} else {
		cmd = exec.Command(path, args...)
	}
	cmd.Dir = c.dir
	return cmd.CombinedOutput()
}

// Start starts the server and waits until it accepts connections. It
// keeps PostgreSQL's defaults (fsync on): the benchmarks use it too.
func (c *Cluster) Start() error {
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=200", c.Port, c.dir)
	for _, s := range c.settings {
		opts += " -c " + s
	}
	out, err := c.run("pg_ctl", "-D", c.data(), "-l", filepath.Join(c.dir, "server.log"), "-w", "-t", "60", "-o", opts, "start")
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
		return fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	return nil
}

// Stop stops the server (fast shutdown: sessions are disconnected).
func (c *Cluster) Stop() error {
	out, err := c.run("pg_ctl", "-D", c.data(), "-m", "fast", "-w", "-t", "60", "stop")
	if err != nil {
		return fmt.Errorf("pg_ctl stop: %v\n%s", err, out)
	}
	return nil
}

// Crash stops the server as a crash does (immediate shutdown: every
// process quits at once, without a checkpoint; the next start recovers
// from the WAL).
func (c *Cluster) Crash() error {
	out, err := c.run("pg_ctl", "-D", c.data(), "-m", "immediate", "-w", "-t", "60", "stop")
	if err != nil {
		return fmt.Errorf("pg_ctl stop -m immediate: %v\n%s", err, out)
	}
	return nil
}

// remove stops the server if it runs and deletes the cluster.
func (c *Cluster) remove() {
	if _, err := os.Stat(filepath.Join(c.data(), "postmaster.pid")); err == nil {
		_ = c.Stop()
	}
	os.RemoveAll(c.dir)
}

// dsn is the connection string of database db over loopback TCP.
func (c *Cluster) dsn(db string) string {
	return fmt.Sprintf("postgres://ark@127.0.0.1:%d/%s?sslmode=disable", c.Port, db)
}

// DSN is the connection string of database db on this server alone, over
// loopback TCP.
func (c *Cluster) DSN(db string) string { return c.dsn(db) }

// CreateDB creates an empty database of its own for a test and returns
// its DSN.
func (c *Cluster) CreateDB(t testing.TB) string {
	t.Helper()
	return c.dsn(c.createDatabase(t))
}

// createDatabase creates an empty database and returns its name.
func (c *Cluster) createDatabase(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("t%d_%d", os.Getpid(), c.dbs.Add(1))
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.dsn("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	return name
}

// Freeze stops every process of the server with SIGSTOP, the postmaster
// first so that it starts no more: the server then neither answers nor
// refuses, as a hung host or a full disk behaves. Thaw undoes it, and the
// test's cleanup thaws a cluster left frozen. Linux only (/proc).
func (c *Cluster) Freeze(t testing.TB) {
	t.Helper()
	pids, err := c.pids()
	if err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Fatalf("SIGSTOP %d: %v", pid, err)
		}
	}
	// A backend forked just before the postmaster stopped is found now.
	more, err := c.pids()
	if err != nil {
		t.Fatal(err)
	}
	for _, pid := range more {
		if !slices.Contains(pids, pid) {
			_ = syscall.Kill(pid, syscall.SIGSTOP)
		}
	}
	c.frozen.Store(true)
	t.Cleanup(func() { c.thaw() })
}

// Thaw continues the processes Freeze stopped, the postmaster last.
func (c *Cluster) Thaw(t testing.TB) {
	t.Helper()
	if err := c.thaw(); err != nil {
		t.Fatal(err)
	}
}

func (c *Cluster) thaw() error {
	if !c.frozen.Swap(false) {
		return nil
	}
	pids, err := c.pids()
	if err != nil {
		return err
	}
	for _, pid := range slices.Backward(pids) {
		if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
			return fmt.Errorf("SIGCONT %d: %v", pid, err)
		}
	}
	return nil
}

// pids returns the postmaster's PID (the first line of postmaster.pid),
// then its children's, from /proc.
func (c *Cluster) pids() ([]int, error) {
	data, err := os.ReadFile(filepath.Join(c.data(), "postmaster.pid"))
	if err != nil {
		return nil, err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	postmaster, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		return nil, fmt.Errorf("postmaster.pid: %q: %v", line, err)
	}
	pids := []int{postmaster}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(postmaster) {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}
