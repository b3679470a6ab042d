//go:build linux

package table

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"golang.org/x/sys/unix"
)

// Lock reads a table that is not in the page cache into it, every page,
// and locks the whole mapping there.
func TestLockKeepsTheWholeTableInMemory(t *testing.T) {
	path, keys := compileKeys(t, 20_000)
	ct, err := OpenCompiled(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if !dropPages(t, ct) {
		t.Skip("the page cache keeps this file's pages after POSIX_FADV_DONTNEED")
	}
	n, err := ct.Lock(nil)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(ct.data) {
		t.Errorf("Lock locked %d bytes of %d", n, len(ct.data))
	}
	all := pageRange{0, (len(ct.data) + os.Getpagesize() - 1) / os.Getpagesize()}
	if got := residentVector(t, ct.data).count(all); got != all.to {
		t.Errorf("after Lock, %d of the table's %d pages are in the page cache", got, all.to)
	}
	if got, want := lockedBytes(t, ct.data), all.to*os.Getpagesize(); got != want {
		t.Errorf("the mapping has %d bytes locked, want %d", got, want)
	}
	if a, ok := ct.Lookup(keys[7]); !ok || a.Status != 302 {
		t.Fatalf("%s after Lock: %+v, %v", keys[7], a, ok)
	}
}

// Lock stops at once when stop is already closed.
func TestLockStops(t *testing.T) {
	path, _ := compileKeys(t, 1000)
	ct, err := OpenCompiled(path, false)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	close(stop)
	if n, err := ct.Lock(stop); n != 0 || err != nil {
		t.Errorf("Lock after stop: %d bytes, %v", n, err)
	}
	if got := lockedBytes(t, ct.data); got != 0 {
		t.Errorf("%d bytes locked", got)
	}
}

// Where the locked-memory limit is below the table's size, Lock says so,
// naming the limit and how to raise it, and leaves nothing locked. A
// process that may lock without limit (CAP_IPC_LOCK, as root has) runs
// the test in a child without that capability.
func TestLockRefusedByTheLimitSaysWhy(t *testing.T) {
	if os.Getenv("ARK_TEST_LOCK_CHILD") == "" && hasCapability(t, unix.CAP_IPC_LOCK) {
		setpriv := testkit.NeedTool(t, "setpriv", "util-linux")
		cmd := exec.Command(setpriv, "--inh-caps=-ipc_lock", "--bounding-set=-ipc_lock", "--",
			os.Args[0], "-test.run=^TestLockRefusedByTheLimitSaysWhy$", "-test.v")
		cmd.Env = append(os.Environ(), "ARK_TEST_LOCK_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS") {
			t.Fatalf("the test without CAP_IPC_LOCK: %v\n%s", err, out)
		}
		return
	}
	path, _ := compileKeys(t, 20_000)
	ct, err := OpenCompiled(path, false)
	if err != nil {
		t.Fatal(err)
	}
	// Steps of 64 KiB under a limit of 256 KiB: the first steps are locked
	// before one is refused, and must be unlocked.
	defer func(step int) { residentStep = step }(residentStep)
	residentStep = 64 << 10
	if len(ct.data) < 8*residentStep {
		t.Fatalf("the table is %d bytes: too small for the test", len(ct.data))
	}
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_MEMLOCK, &old); err != nil {
		t.Fatal(err)
	}
	if err := unix.Setrlimit(unix.RLIMIT_MEMLOCK, &unix.Rlimit{Cur: 256 << 10, Max: old.Max}); err != nil {
		t.Fatal(err)
	}
	defer unix.Setrlimit(unix.RLIMIT_MEMLOCK, &old)
	n, err := ct.Lock(nil)
	if err == nil {
		t.Fatalf("Lock of %d bytes under a 256 KiB limit: no error, %d bytes locked", len(ct.data), n)
	}
	for _, want := range []string{path, "the locked-memory limit is 256 KiB", "LimitMEMLOCK="} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if got := lockedBytes(t, ct.data); n != 0 || got != 0 {
		t.Errorf("after the refusal: Lock says %d bytes, the mapping has %d locked", n, got)
	}
}

// hasCapability reports whether the process has capability c in effect.
func hasCapability(t *testing.T, c int) bool {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if hex, ok := strings.CutPrefix(line, "CapEff:"); ok {
			eff, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			return eff&(1<<c) != 0
		}
	}
	t.Fatal("no CapEff in /proc/self/status")
	return false
}

// lockedBytes returns what /proc/self/smaps says is locked of the mapping
// that starts at data.
func lockedBytes(t *testing.T, data []byte) int {
	t.Helper()
	start := uintptr(unsafe.Pointer(&data[0]))
	for _, m := range testkit.Mappings(t) {
		if m.Start == start {
			return m.Locked
		}
	}
	t.Fatalf("no mapping at %#x in /proc/self/smaps", start)
	return 0
}
