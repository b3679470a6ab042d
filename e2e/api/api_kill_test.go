package api

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// caddyProcess is a caddy binary running an APISite's config in a child
// process, so that it can be killed.
type caddyProcess struct {
	cmd  *exec.Cmd
	site *caddytest.APISite
}

// startCaddyProcess runs the caddy binary with an APISite's config over db
// and waits until its API answers.
func startCaddyProcess(t *testing.T, db, tablePath string) *caddyProcess {
	t.Helper()
	return startCaddyBody(t, caddytest.APISiteBody(db, tablePath, ""), db, tablePath)
}

// startCaddyBody runs the caddy binary with the site block body (an
// APISite's, over the store db, "" for one not a file) and waits until
// its API answers.
func startCaddyBody(t *testing.T, body, db, tablePath string) *caddyProcess {
	t.Helper()
	bin := caddytest.Binary(t)
	port := caddytest.FreePort(t)
	dir := t.TempDir()
	config := testkit.WriteFile(t, "Caddyfile", caddytest.GlobalOptions+"\n:"+strconv.Itoa(port)+" {\n\tbind 127.0.0.1\n"+body+"\n}\n")
	cmd := exec.Command(bin, "run", "--config", config, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &caddyProcess{cmd: cmd, site: &caddytest.APISite{Site: &caddytest.Site{T: t, Base: "http://127.0.0.1:" + strconv.Itoa(port)}, DB: db, Table: tablePath}}
	t.Cleanup(func() { p.kill() })
	testkit.WaitFor(t, "the caddy process to answer", func() bool {
		req, _ := http.NewRequest("GET", p.site.Base+"/api/ark/export", nil)
		req.Header.Set("Authorization", "Bearer reader-secret")
		resp, err := caddytest.Client.Do(req)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return p
}

// kill sends SIGKILL to the process, by its PID, and reaps it.
func (p *caddyProcess) kill() {
	if p.cmd.ProcessState != nil {
		return
	}
	_ = syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL)
	_ = p.cmd.Wait()
}

func TestKill9DuringBulkKeepsAcknowledgedLines(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ark.db")
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "/t1"}})
	p := startCaddyProcess(t, db, tablePath)

	const lines, killAfter = 100000, 300
	target := func(i int) string { return "https://repo.example.org/k/" + strconv.Itoa(i) }
	body, feed := io.Pipe()
	go func() {
		w := bufio.NewWriter(feed)
		for i := range lines {
			fmt.Fprintf(w, `{"op": "bind", "id": "ark:12345/x5k%d", "target": %q}`+"\n", i, target(i))
		}
		feed.CloseWithError(w.Flush())
	}()
	req, err := http.NewRequest("POST", p.site.Base+"/api/ark/bulk", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer editor-secret")
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	acknowledged := map[string]int{} // id: its line's index
	results := bufio.NewScanner(resp.Body)
	for results.Scan() {
		var r api.BulkResult
		if err := json.Unmarshal(results.Bytes(), &r); err != nil {
			t.Fatalf("result line %q: %v", results.Text(), err)
		}
		if r.Status != http.StatusCreated {
			t.Fatalf("result %+v", r)
		}
		acknowledged[r.ID] = r.Line - 1
		if len(acknowledged) == killAfter {
			p.kill() // mid-stream: the body is far from sent
		}
	}
	resp.Body.Close()
	body.Close()
	if len(acknowledged) < killAfter || len(acknowledged) >= lines {
		t.Fatalf("%d lines acknowledged: the kill was not mid-stream", len(acknowledged))
	}

	// A new process over the same file: every acknowledged line is there,
	// and whatever else is there is whole.
	p = startCaddyProcess(t, db, tablePath)
	for id, i := range acknowledged {
		r := p.site.Lookup(id)
		if r == nil || r.Binding.Target != target(i) || r.Binding.Version != 1 || len(r.History) != 1 || r.History[0].By != "editor" {
			t.Fatalf("acknowledged %s after kill -9: %+v", id, r)
		}
	}
	export := p.site.Call("GET", "/export", "editor", "")
	if _, err := table.Load([]string{testkit.WriteFile(t, "export.json", export.Body)}, nil); export.Status != http.StatusOK || err != nil {
		t.Fatalf("export after kill -9: %d %v", export.Status, err)
	}
	var kept struct{ Entries []table.Entry }
	if err := json.Unmarshal([]byte(export.Body), &kept); err != nil {
		t.Fatal(err)
	}
	if len(kept.Entries) < len(acknowledged) {
		t.Errorf("%d bindings in the store, %d acknowledged", len(kept.Entries), len(acknowledged))
	}
	for _, e := range kept.Entries {
		n, err := strconv.Atoi(strings.TrimPrefix(e.ID, "ark:12345/x5k"))
		if err != nil || e.Target != target(n) || e.Status != 302 {
			t.Errorf("%s after kill -9: %+v", e.ID, e)
		}
	}
	t.Logf("%d lines acknowledged before kill -9, %d bindings kept", len(acknowledged), len(kept.Entries))
}
