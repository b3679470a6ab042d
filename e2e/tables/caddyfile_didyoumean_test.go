package tables

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	_ "github.com/caddy-ark/caddy-ark/store/postgres"
)

// An unknown subdirective, in the ark block or any block in it, is refused
// at its line with the one it is nearest to.
func TestUnknownSubdirectivesSayWhatTheyMayHaveMeant(t *testing.T) {
	for block, want := range map[string]string{
		"tabel arks.json":                                     `unknown subdirective "tabel" (did you mean "table"?)`,
		"target_check":                                        `unknown subdirective "target_check" (did you mean "targets_check"?)`,
		"info-template t.html":                                `unknown subdirective "info-template" (did you mean "info_template"?)`,
		"api /api {\n\t\tkeyfile keys.txt\n\t}":               `api: unknown subdirective "keyfile" (did you mean "key_file"?)`,
		"api /api {\n\t\tui {\n\t\t\tsesion 8h\n\t\t}\n\t}":   `api: ui: unknown subdirective "sesion" (did you mean "session"?)`,
		"store bolt s.db\n\tstats {\n\t\tretension 400d\n\t}": `stats: unknown subdirective "retension" (did you mean "retention"?) (the block takes flush_interval, top, not_found and retention)`,
		"targets_check {\n\t\ttimout 5s\n\t}":                 `targets_check: unknown option "timout" (did you mean "timeout"?) (it takes interval, host_interval, timeout, failures, max_rate, allow_private, user_agent, skip and notify)`,
		"store bolt s.db {\n\t\tskipcheck\n\t}":               `store bolt: unknown subdirective "skipcheck" (did you mean "skip_check"?) (the block takes skip_check)`,
		"store postgres {\n\t\tshema ark\n\t}":                `unknown postgres store option "shema" (did you mean "schema"?) (the block takes dsn, read_dsn, schema, max_conns and timeout)`,
		"store blot s.db":                                     `store: unknown backend "blot" (did you mean "bolt"?)`,
		"frobnicate":                                          `unknown subdirective "frobnicate"`,
	} {
		caddyfile := ":8080 {\n\tark {\n\t" + block + "\n\t}\n}\n"
		_, err := caddytest.AdaptCaddyfile(caddyfile, filepath.Join(t.TempDir(), "Caddyfile"))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "Caddyfile:") {
			t.Errorf("%q: %v; want an error at its line saying %s", block, err, want)
		}
		if strings.HasPrefix(block, "frobnicate") && err != nil && strings.Contains(err.Error(), "did you mean") {
			t.Errorf("%q: %v: nothing is near it", block, err)
		}
	}
}
