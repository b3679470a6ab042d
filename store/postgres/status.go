package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// ServerStatus is what one of the servers a connection string names
// says of itself: `caddy ark store status` prints one a line.
type ServerStatus struct {
	// The server, as host:port.
	Server string `json:"server"`
	// Whether it answered; if not, why (the connection's error, without
	// the connection string).
	Up    bool   `json:"up"`
	Error string `json:"error,omitempty"`
	// "primary" or "standby".
	Role string `json:"role,omitempty"`
	// On a standby: seconds behind the primary's last commit it
	// received (0 when it replayed all it received), and whether it
	// streams from a primary now.
	ReplayLag float64 `json:"replay_lag_seconds,omitempty"`
	Streaming bool    `json:"streaming,omitempty"`
	// The newest record of the schema's history it holds; -1 when it has
	// no such schema.
	HistorySeq int64 `json:"history_seq"`
}

// ServerStatuses connects to each server that dsn names (each host of a
// multi-host connection string, whatever its target_session_attrs) and
// asks it for its state and the newest record of schema's history,
// within timeout each.
func ServerStatuses(ctx context.Context, dsn, schema string, timeout time.Duration) ([]ServerStatus, error) {
	if schema == "" {
		schema = DefaultSchema
	}
	if !validSchemaName(schema) {
		return nil, fmt.Errorf("--schema %q: lowercase letters, digits and _ only", schema)
	}
	cfg, err := pgPoolConfig(dsn, "dsn", 1, timeout)
	if err != nil {
		return nil, err
	}
	conn := cfg.ConnConfig
	// The servers in the connection string's order, each with its own
	// fallbacks (with and without TLS under sslmode prefer).
	type server struct {
		name  string
		tries []*pgconn.FallbackConfig
	}
	var servers []*server
	byName := map[string]*server{}
	all := append([]*pgconn.FallbackConfig{{Host: conn.Host, Port: conn.Port, TLSConfig: conn.TLSConfig}}, conn.Fallbacks...)
	for _, f := range all {
		name := fmt.Sprintf("%s:%d", f.Host, f.Port)
		if strings.HasPrefix(f.Host, "/") {
			name = fmt.Sprintf("%s/.s.PGSQL.%d", f.Host, f.Port)
		}
		s := byName[name]
		if s == nil {
			s = &server{name: name}
			byName[name] = s
			servers = append(servers, s)
		}
		s.tries = append(s.tries, f)
	}
	out := make([]ServerStatus, len(servers))
	for i, s := range servers {
		one := conn.Copy()
		one.Host, one.Port, one.TLSConfig = s.tries[0].Host, s.tries[0].Port, s.tries[0].TLSConfig
		one.Fallbacks = s.tries[1:]
		one.ValidateConnect = nil
		one.RuntimeParams["application_name"] = "caddy-ark status"
		out[i] = serverStatus(ctx, one, schema, timeout)
		out[i].Server = s.name
	}
	return out, nil
}

// serverStatus asks the one server of cfg.
func serverStatus(ctx context.Context, cfg *pgx.ConnConfig, schema string, timeout time.Duration) ServerStatus {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	st := ServerStatus{HistorySeq: -1}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		st.Error = connectError(err)
		return st
	}
	defer conn.Close(context.Background())
	var state pgServerState
	if err := conn.QueryRow(ctx, "SELECT "+pgServerStateSQL).Scan(&state.Standby, &state.ReplayLag, &state.Receiving); err != nil {
		st.Error = err.Error()
		return st
	}
	st.Up, st.Role = true, "primary"
	if state.Standby {
		st.Role, st.ReplayLag, st.Streaming = "standby", state.ReplayLag, state.Receiving
	}
	err = conn.QueryRow(ctx, pgSQL(schema, "SELECT coalesce(max(seq), 0) FROM @.history")).Scan(&st.HistorySeq)
	var pgErr *pgconn.PgError
	if err != nil && !(errors.As(err, &pgErr) && (pgErr.Code == "42P01" || pgErr.Code == "3F000")) {
		st.Error = err.Error()
	}
	return st
}

// connectError is why a connection failed, without the connection
// string pgx's message may quote (its password too).
func connectError(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return msg
}
