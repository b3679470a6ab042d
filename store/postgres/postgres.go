package postgres

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/suggest"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

func init() {
	caddy.RegisterModule(new(Store))
}

// DefaultSchema is the schema the store's tables live in by default.
const DefaultSchema = "ark"

// defaultPGTimeout bounds each operation of a PostgreSQL store: beyond it
// the server counts as unavailable (503 for an uncached identifier).
const defaultPGTimeout = 2 * time.Second

// Store keeps identifiers in a PostgreSQL database, so that many
// Caddy nodes resolve, mint and bind against one set of identifiers. It
// creates or migrates its tables under Schema when it starts, and tells
// the nodes of each other's changes by following the history table by
// its sequence, from whichever server answers (a standby too), with
// LISTEN/NOTIFY, where the server is the primary, to read it sooner.
//
// With PostgreSQL's streaming replication, DSN may name the primary and
// its standbys (several hosts): writes find the primary, the promoted
// one after a failover too; ReadDSN sends the reads to a standby near
// the node.
//
// When the server is down or slower than Timeout, operations fail with
// ErrUnavailable, and the store reconnects by itself.
type Store struct {
	// The connection string: a URL (postgres://user:password@host:port/db)
	// or key=value pairs, as libpq takes them, including pgxpool's
	// pool_* settings. Placeholders such as {env.ARK_PG_DSN} are
	// replaced, so the password need not be in the config.
	//
	// It may name several servers (host=a,b port=5432,5432): the
	// primary and its standbys. Writes need the primary, so when it names
	// several and sets no target_session_attrs, read-write is taken: each
	// new connection tries the hosts in order and keeps the first that
	// takes writes, which after `pg_ctl promote` is the promoted standby,
	// without a reload.
	DSN string `json:"dsn,omitempty"`

	// The connection string of the reads that a hot standby may serve:
	// identifier lookups, the API's reads of bindings, lists and the
	// history (GET changes), and the history that the node follows to
	// learn of other nodes' changes. Typically the standby near the node
	// first, then the others, with target_session_attrs=prefer-standby
	// (or any), so that reads go on while the primary is away or being
	// replaced. Default: the DSN (everything from the primary).
	//
	// A standby replays the primary's changes a little later: with
	// synchronous_commit = remote_apply on the primary (and the standby
	// in synchronous_standby_names) a write is on the standby once it
	// returns; otherwise a node may answer an identifier's previous
	// binding for as long as the standby lags (shown as
	// caddy_ark_postgres_replay_lag_seconds).
	ReadDSN string `json:"read_dsn,omitempty"`

	// The schema that holds the store's tables; created when missing.
	// Default: ark.
	Schema string `json:"schema,omitempty"`

	// The most connections the pool opens (besides one that listens for
	// other nodes' changes). Default: pgxpool's, the larger of 4 and the
	// number of CPUs.
	MaxConns int32 `json:"max_conns,omitempty"`

	// How long one operation (a lookup, a bind, a mint) may take,
	// connecting included, before the server counts as unavailable.
	// Imports and exports are not bounded. Default: 2s.
	Timeout caddy.Duration `json:"timeout,omitempty"`

	key string // the backend's key in pgBackends

	// The backend, shared with every store of the same settings: the
	// store's methods are its own.
	backend
}

// backend is what a Store hands on to its Backend: the methods of a
// store, and nothing else of the Backend (not Destruct, which the pool
// calls).
type backend = store.Store

// CaddyModule returns the Caddy module information.
func (*Store) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "ark.stores.postgres",
		New: func() caddy.Module { return new(Store) },
	}
}

// pgBackends holds the running backends by their settings: a config reload
// that keeps them keeps the connections and the listener.
var pgBackends = caddy.NewUsagePool()

// Provision connects to the server, unless an identical store already
// runs, and creates or migrates the schema; provisioned with a
// store.OpenLater, it gives that step to it instead. A server that cannot be
// reached does not fail the config: the store answers ErrUnavailable and
// migrates when the server comes back.
func (s *Store) Provision(ctx caddy.Context) error {
	if err := s.Validate(); err != nil {
		return err
	}
	settings := *s
	settings.DSN = caddy.NewReplacer().ReplaceAll(s.DSN, "")
	settings.ReadDSN = caddy.NewReplacer().ReplaceAll(s.ReadDSN, "")
	if settings.Schema == "" {
		settings.Schema = DefaultSchema
	}
	if settings.Timeout == 0 {
		settings.Timeout = caddy.Duration(defaultPGTimeout)
	}
	key, err := json.Marshal(settings)
	if err != nil {
		return err
	}
	logger := ctx.Logger()
	open := func() error {
		val, _, err := pgBackends.LoadOrNew(string(key), func() (caddy.Destructor, error) {
			return newPGBackend(settings.DSN, settings.ReadDSN, settings.Schema, settings.MaxConns, time.Duration(settings.Timeout), logger)
		})
		if err != nil {
			return err
		}
		s.key, s.backend = string(key), val.(*Backend)
		return nil
	}
	if err := registerPGMetrics(ctx); err != nil {
		return err
	}
	if ctx.Context != nil {
		if later, ok := ctx.Value(store.OpenLaterKey{}).(store.OpenLater); ok {
			later(open)
			return nil
		}
	}
	return open()
}

// Validate checks the settings.
func (s *Store) Validate() error {
	if s.DSN == "" {
		return errors.New("store postgres: dsn is required")
	}
	if s.Schema != "" && !validSchemaName(s.Schema) {
		return fmt.Errorf("store postgres: schema %q: use lowercase letters, digits and _, starting with a letter or _, at most %d bytes", s.Schema, pgMaxSchemaLen)
	}
	if s.MaxConns < 0 {
		return fmt.Errorf("store postgres: max_conns %d: must be positive", s.MaxConns)
	}
	if s.Timeout < 0 {
		return fmt.Errorf("store postgres: timeout %v: must be positive", time.Duration(s.Timeout))
	}
	return nil
}

// pgMaxSchemaLen is the longest schema name: PostgreSQL's identifiers and
// NOTIFY channels are at most 63 bytes, and the channel of a schema's
// changes is "caddy_ark." and its name.
const pgMaxSchemaLen = 63 - len("caddy_ark.")

// validSchemaName allows the names that need no quoting in SQL, so that
// what the operator writes is what psql shows.
func validSchemaName(name string) bool {
	if len(name) == 0 || len(name) > pgMaxSchemaLen {
		return false
	}
	for i, c := range name {
		switch {
		case c == '_', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// Cleanup releases the backend; the last store using it closes it.
func (s *Store) Cleanup() error {
	if s.backend == nil {
		return nil
	}
	s.backend = nil
	_, err := pgBackends.Delete(s.key)
	return err
}

// blockOptions are the options of the postgres store's block.
var blockOptions = []string{"dsn", "read_dsn", "schema", "max_conns", "timeout"}

// UnmarshalCaddyfile sets up the store from Caddyfile tokens:
//
//	store postgres [<dsn>] {
//		dsn       <connection string>
//		read_dsn  <connection string>
//		schema    <name>
//		max_conns <n>
//		timeout   <duration>
//	}
func (s *Store) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the backend's name
	if d.NextArg() {
		s.DSN = d.Val()
	}
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		opt := d.Val()
		if !d.NextArg() {
			return d.ArgErr()
		}
		val := d.Val()
		switch opt {
		case "dsn":
			s.DSN = val
		case "read_dsn":
			s.ReadDSN = val
		case "schema":
			s.Schema = val
		case "max_conns":
			n, err := strconv.ParseInt(val, 10, 32)
			if err != nil || n < 1 {
				return d.Errf("max_conns %q: want a positive number", val)
			}
			s.MaxConns = int32(n)
		case "timeout":
			dur, err := caddy.ParseDuration(val)
			if err != nil || dur <= 0 {
				return d.Errf("timeout %q: want a positive duration such as 2s", val)
			}
			s.Timeout = caddy.Duration(dur)
		default:
			return d.Errf("unknown postgres store option %q%s (the block takes %s)", opt, suggest.DidYouMean(opt, blockOptions), suggest.List(blockOptions))
		}
		if d.NextArg() {
			return d.ArgErr()
		}
	}
	return nil
}

// pgPoolConfig parses dsn, the value of option ("dsn" or "read_dsn"),
// with the store's settings. The dsn's pool, the writes', connects to
// the server that takes writes (read-write) when it names several and no
// target_session_attrs.
func pgPoolConfig(dsn, option string, maxConns int32, timeout time.Duration) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// pgx's message may quote the whole connection string, password
		// included: say only what is wrong.
		msg := err.Error()
		if i := strings.LastIndex(msg, ": "); i >= 0 {
			msg = msg[i+2:]
		}
		return nil, fmt.Errorf("store postgres: %s: %s", option, msg)
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	if cfg.ConnConfig.ConnectTimeout == 0 || cfg.ConnConfig.ConnectTimeout > timeout {
		cfg.ConnConfig.ConnectTimeout = timeout
	}
	if option == "dsn" && pgServerCount(cfg) > 1 && !strings.Contains(dsn, "target_session_attrs") {
		cfg.ConnConfig.ValidateConnect = pgconn.ValidateConnectTargetSessionAttrsReadWrite
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = "caddy-ark"
	if _, set := cfg.ConnConfig.RuntimeParams["lock_timeout"]; !set {
		// A write waiting behind an import's table lock gives up before
		// its timeout, with an error that says so (errStoreBusy), instead of
		// running out of time like a server that stopped answering.
		cfg.ConnConfig.RuntimeParams["lock_timeout"] = strconv.FormatInt(max(1, (timeout*3/4).Milliseconds()), 10)
	}
	return cfg, nil
}

// pgServerCount counts the servers cfg names (a host is tried twice, with
// TLS and without, under sslmode prefer).
func pgServerCount(cfg *pgxpool.Config) int {
	servers := map[string]bool{fmt.Sprint(cfg.ConnConfig.Host, ":", cfg.ConnConfig.Port): true}
	for _, f := range cfg.ConnConfig.Fallbacks {
		servers[fmt.Sprint(f.Host, ":", f.Port)] = true
	}
	return len(servers)
}

// Interface guards
var (
	_ store.Store           = (*Store)(nil)
	_ caddy.Provisioner     = (*Store)(nil)
	_ caddy.Validator       = (*Store)(nil)
	_ caddy.CleanerUpper    = (*Store)(nil)
	_ caddyfile.Unmarshaler = (*Store)(nil)
)
