package store

// Replicated is a store whose server may be a primary or one of its
// standbys (the PostgreSQL store): the readiness check shows what it
// says, and so does `caddy ark store status`.
type Replicated interface {
	// Replication says what the node knows of its servers now, without
	// asking them.
	Replication() Replication
}

// Replication is what a node knows of its store's servers.
type Replication struct {
	// Whether the server of the writes (the primary) answered the last
	// operation.
	Writes bool `json:"writes"`
	// Whether the server of the reads answered the last one: the same
	// as Writes without a read DSN.
	Reads bool `json:"reads"`
	// Whether the node follows the history of changes from a server now.
	Following bool `json:"following"`
	// The server the node follows the history from, when last read:
	// "primary", "standby", or "" when none has answered yet.
	Server string `json:"server,omitempty"`
	// On a standby: how far behind the primary it replays, in seconds,
	// and whether it streams from a primary now (false once the primary
	// is gone, until a standby is promoted).
	ReplayLag float64 `json:"replay_lag_seconds,omitempty"`
	Streaming bool    `json:"streaming,omitempty"`
	// The newest history record the node has read, and how many seconds
	// ago it last read the history.
	HistorySeq uint64  `json:"history_seq"`
	ReadAgo    float64 `json:"read_seconds_ago,omitempty"`
}
