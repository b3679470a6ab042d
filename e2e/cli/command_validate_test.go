package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// TestValidateLeavesTheStoreAlone runs `caddy validate` as step 3 of the
// upgrade in docs/installing.md does: beside a server that holds the bolt
// file's lock, and before any store file exists. Validation provisions the
// config but never runs it, so it must neither wait on the lock nor create
// the file.
func TestValidateLeavesTheStoreAlone(t *testing.T) {
	tablePath := testkit.WriteFile(t, "ids.json", caddytest.TableJSON(t, table.Entry{ID: "ark:12345/t1", Target: "https://example.org/t1"}))
	validate := func(db string) (string, string, int) {
		t.Helper()
		body := caddytest.APISiteBody(db, tablePath, "minter ark:12345/b3 .sdddd")
		config := testkit.WriteFile(t, "Caddyfile", caddytest.GlobalOptions+"\n:8080 {\n"+body+"\n}\n")
		return caddytest.RunCaddy(t, "", "validate", "--config", config, "--adapter", "caddyfile")
	}

	fresh := filepath.Join(t.TempDir(), "ark.db")
	if out, errOut, status := validate(fresh); status != 0 || !strings.Contains(out+errOut, "Valid configuration") {
		t.Errorf("validate without a store file: status %d, stdout %q, stderr %q", status, out, errOut)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("validate created the store file %s (stat: %v)", fresh, err)
	}

	node := caddytest.StartNode(t, caddytest.APISiteBody(fresh, tablePath, "minter ark:12345/b3 .sdddd"), tablePath)
	if out, errOut, status := validate(fresh); status != 0 || !strings.Contains(out+errOut, "Valid configuration") {
		t.Errorf("validate beside the running server: status %d, stdout %q, stderr %q", status, out, errOut)
	}
	if got := node.Get("/ark:12345/t1"); got.Status != 302 {
		t.Errorf("the running node after validate: %d %s", got.Status, got.Body)
	}
}
