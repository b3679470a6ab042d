package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/jackc/pgx/v5"
)

// retargetKillCount is how many identifiers the retarget killed midway
// moves: enough parts (of api.BatchSize) that the kill comes well before
// its end.
const retargetKillCount = 30000

// checkKill9DuringRetarget binds retargetKillCount identifiers through
// the caddy process start runs, retargets them all, and kills the process
// with SIGKILL once started says that parts of the retarget are made
// (and before it answers). A new process over the same store must hold
// either every identifier retargeted or none, with the history saying
// the same: one record of the batch for each identifier changed, and
// versions that agree. A retarget then goes through whole.
func checkKill9DuringRetarget(t *testing.T, start func(t *testing.T) *caddyProcess, started func(p *caddyProcess) bool) {
	p := start(t)
	oldTarget := func(i int) string { return fmt.Sprintf("https://old.example.org/items/k%d", i) }
	entries := make([]table.Entry, retargetKillCount)
	for i := range entries {
		entries[i] = table.Entry{ID: fmt.Sprintf("ark:12345/x5k%05d", i), Target: oldTarget(i)}
	}
	body, err := json.Marshal(map[string]any{"entries": entries})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.site.Call("POST", "/import", "editor", string(body)); got.Status != http.StatusOK {
		t.Fatalf("import: %d %s", got.Status, got.Body)
	}

	answered := make(chan string, 1)
	go func() { answered <- retargetAll(p.site) }()
	testkit.WaitFor(t, "parts of the retarget to be made", func() bool { return started(p) })
	p.kill()
	if got := <-answered; strings.HasPrefix(got, "200 ") {
		t.Fatalf("the retarget answered before the kill: %s; make it larger", got)
	}

	p = start(t)
	export := p.site.Call("GET", "/export", "editor", "")
	var kept struct{ Entries []table.Entry }
	if err := json.Unmarshal([]byte(export.Body), &kept); export.Status != http.StatusOK || err != nil {
		t.Fatalf("export after kill -9: %d %v", export.Status, err)
	}
	moved := 0
	for _, e := range kept.Entries {
		if strings.HasPrefix(e.Target, "https://new.example.org/") {
			moved++
		}
	}
	if len(kept.Entries) != retargetKillCount || moved != 0 && moved != retargetKillCount {
		t.Fatalf("after kill -9 during the retarget: %d of %d identifiers retargeted; want all or none", moved, len(kept.Entries))
	}
	inBatch := 0
	for _, c := range apiChanges(p.site, "since=0", "editor", 1000) {
		if c.Batch != 0 {
			inBatch++
			if c.Old == nil || c.New == nil || !strings.HasPrefix(c.New.Target, "https://new.example.org/") || c.New.Version != 2 {
				t.Errorf("a record of the retarget: %+v", c)
			}
		}
	}
	if inBatch != moved {
		t.Errorf("the history holds %d records of the retarget; %d identifiers were retargeted", inBatch, moved)
	}
	want := uint64(1)
	if moved > 0 {
		want = 2
	}
	for _, i := range []int{0, 1, retargetKillCount / 2, retargetKillCount - 1} {
		r := p.site.Lookup(entries[i].ID)
		if r == nil || r.Binding.Version != want || uint64(len(r.History)) != want {
			t.Errorf("%s after kill -9: %+v; want version %d and as many records", entries[i].ID, r, want)
		}
	}
	t.Logf("after kill -9 during the retarget of %d: %d retargeted", retargetKillCount, moved)

	if moved == 0 {
		if got := retargetAll(p.site); !strings.HasPrefix(got, "200 ") || !strings.Contains(got, fmt.Sprintf(`"count": %d`, retargetKillCount)) {
			t.Errorf("the retarget again: %s", got)
		}
	}
}

// retargetAll retargets every identifier of s from old.example.org to
// new.example.org, with a client that waits as long as it takes, and
// returns the status and body of the answer, or the error of a request
// that got none.
func retargetAll(s *caddytest.APISite) string {
	req, err := http.NewRequest("POST", s.Base+"/api/ark/retarget", strings.NewReader(`{"from": "https://old.example.org/", "to": "https://new.example.org/"}`))
	if err != nil {
		return err.Error()
	}
	req.Header.Set("Authorization", "Bearer editor-secret")
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%d %s", resp.StatusCode, data)
}

// firstRetargeted reports whether the first identifier, in key order,
// is seen retargeted: a part of the retarget is made and seen.
func firstRetargeted(p *caddyProcess) bool {
	got := p.site.Call("GET", "/id/ark:12345/x5k00000", "reader", "")
	return strings.Contains(got.Body, "https://new.example.org/")
}

// TestKill9DuringRetargetBolt: see checkKill9DuringRetarget.
func TestKill9DuringRetargetBolt(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ark.db")
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "/t1"}})
	checkKill9DuringRetarget(t, func(t *testing.T) *caddyProcess { return startCaddyProcess(t, db, tablePath) }, firstRetargeted)
}

// TestKill9DuringRetargetPostgres: see checkKill9DuringRetarget. A part
// made is seen by readers, or, where the retarget is one transaction,
// PostgreSQL says that a session has written a part's history records
// into the transaction's temporary table.
func TestKill9DuringRetargetPostgres(t *testing.T) {
	dsn := testkit.StartPostgres(t).CreateDB(t)
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "/t1"}})
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	checkKill9DuringRetarget(t, func(t *testing.T) *caddyProcess {
		return startCaddyBody(t, caddytest.PGSiteBody(dsn, tablePath), "", tablePath)
	},
		func(p *caddyProcess) bool {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var n int
			err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
				AND query LIKE 'INSERT INTO ark_batch%'`).Scan(&n)
			return err == nil && n > 0 || firstRetargeted(p)
		})
}
