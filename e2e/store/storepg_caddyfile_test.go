package store

import (
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddyserver/caddy/v2"
)

func TestPostgresCaddyfile(t *testing.T) {
	adapt := func(store string) (string, error) {
		cfg, err := caddytest.AdaptCaddyfile(":8080 {\n\tark {\n\t\tnaan 12345\n\t\t"+store+"\n\t}\n}\n", "Caddyfile")
		return string(cfg), err
	}
	for store, want := range map[string]string{
		`store postgres "host=db dbname=ark"`: `"store":{"backend":"postgres","dsn":"host=db dbname=ark"}`,
		"store postgres {\n\t\t\tdsn postgres://ark@db/ark\n\t\t\tschema ids\n\t\t\tmax_conns 8\n\t\t\ttimeout 500ms\n\t\t}":                             `"store":{"backend":"postgres","dsn":"postgres://ark@db/ark","max_conns":8,"schema":"ids","timeout":500000000}`,
		"store postgres {\n\t\t\tdsn \"host=db1,db2 dbname=ark\"\n\t\t\tread_dsn \"host=db2,db1 dbname=ark target_session_attrs=prefer-standby\"\n\t\t}": `"store":{"backend":"postgres","dsn":"host=db1,db2 dbname=ark","read_dsn":"host=db2,db1 dbname=ark target_session_attrs=prefer-standby"}`,
	} {
		got, err := adapt(store)
		if err != nil || !strings.Contains(got, want) {
			t.Errorf("%s:\n%s, %v\nwant it to contain %s", store, got, err, want)
		}
	}
	for store, want := range map[string]string{
		"store postgres {\n\t\t\tdsn x\n\t\t\tpool 3\n\t\t}":       `unknown postgres store option "pool"`,
		"store postgres {\n\t\t\tdsn x\n\t\t\tmax_conns 0\n\t\t}":  `max_conns "0": want a positive number`,
		"store postgres {\n\t\t\tdsn x\n\t\t\ttimeout soon\n\t\t}": `timeout "soon": want a positive duration`,
		"store postgres {\n\t\t\tdsn\n\t\t}":                       "wrong argument count",
		"store postgres {\n\t\t\tdsn x\n\t\t\tread_dsn\n\t\t}":     "wrong argument count",
		"store postgres {\n\t\t\tdsn x\n\t\t\tread_dns y\n\t\t}":   `unknown postgres store option "read_dns" (did you mean "read_dsn"?)`,
		"store postgres a b": "wrong argument count",
	} {
		if _, err := adapt(store); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "Caddyfile:") {
			t.Errorf("%s: %v, want an error at a line of the Caddyfile saying %s", store, err, want)
		}
	}
	// Settings that adapt but cannot work are refused when the config
	// loads, with the reason, before anything is connected.
	s := &caddytest.Site{T: t}
	t.Cleanup(func() { _ = caddy.Stop() })
	for store, want := range map[string]string{
		"store postgres {\n\t\t\tschema ids\n\t\t}":                                                               "dsn is required",
		"store postgres {\n\t\t\tdsn postgres://ark@db/ark\n\t\t\tschema Ids\n\t\t}":                              `schema "Ids"`,
		`store postgres "host=db port=notaport"`:                                                                  "store postgres: dsn:",
		"store postgres {\n\t\t\tdsn \"host=db\"\n\t\t\tread_dsn \"host=db target_session_attrs=nearest\"\n\t\t}": "store postgres: read_dsn:",
	} {
		err := s.Load("\tark {\n\t\tnaan 12345\n\t\t" + store + "\n\t}")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a refusal saying %s", store, err, want)
		}
	}
}
