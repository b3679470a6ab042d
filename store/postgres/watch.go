package postgres

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"
)

// pgWatchMax is the most changes a node reads back one by one; when more
// happened since it last read (a large import, a long disconnection), it
// forgets everything instead.
const pgWatchMax = 1000

// pgWatch tells a backend's watchers of changes: its own writes at once,
// other nodes' from the history, which a connection of its own follows
// by sequence on the reads' server (the read DSN's, else the DSN's), or,
// while none of the kind that DSN asks for answers, on any of its servers
// that does: a standby holds what the primary committed (all of it when
// synchronous). On the primary it LISTENs, and reads the history when a
// NOTIFY arrives; a standby gets no NOTIFY and is read every
// pgStandbyPoll. It reads after every reconnection too, and reconnects
// when the server it follows is promoted. When the connection it
// followed on is lost, it tells WatchLapses' watchers (a NOTIFY may have
// been lost with it) and connects again at once.
//
// The history's sequence numbers are handed out before commit. This
// version's writers take lockHistory, so that records become visible in
// their order, on the primary and, replaying its commits in order, on a
// standby; but a node of an earlier version took no lock: its record
// may become visible after one with a higher number was read. Each read
// therefore also takes what its snapshot could not see: the transactions
// still running below its xmax, and every transaction from xmax on (a
// writer that got its id after another's but its number before it is not
// among the running ones). The next read fetches those transactions'
// records whatever their number. (A standby's snapshot lists no running
// transactions; the history's lock is what orders its records there.)
//
// The listener reads the history at least every pgWatchPoll even when no
// NOTIFY comes: a notification can be lost with its connection, and a
// connection that silently stopped carrying data (a firewall that forgot
// it) fails that read within the store's timeout and is replaced.
type pgWatch struct {
	mu       sync.Mutex
	watchers map[*func([]string)]struct{}
	lapses   map[*func()]struct{} // told when a session that followed is lost

	cancel context.CancelFunc
	done   chan struct{}
	wake   chan struct{} // the pool reached the server again: reconnect now
}

// pgWatchPoll is the longest a listener waits for a NOTIFY, from the
// start of its last read of the history, before it reads it anyway.
const pgWatchPoll = time.Second

// channel is the NOTIFY channel of a schema's changes.
func (*pgWatch) channel(schema string) string { return "caddy_ark." + schema }

// start starts listening for b's changes.
func (w *pgWatch) start(b *Backend) {
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel, w.done, w.wake = cancel, make(chan struct{}), make(chan struct{}, 1)
	go func() {
		defer close(w.done)
		w.listen(ctx, b)
	}()
}

// stop stops listening and waits until the listener has closed its
// connection.
func (w *pgWatch) stop() {
	w.cancel()
	<-w.done
}

// Watch registers changed until ctx is done.
func (b *Backend) Watch(ctx context.Context, changed func(keys []string)) {
	addUntil(ctx, &b.watch.mu, &b.watch.watchers, &changed)
}

// WatchLapses implements store.Lapsing: lapsed is called, until ctx is
// done, each time the listener loses the connection it followed the
// history on (a NOTIFY may have been lost with it), before it connects
// again.
func (b *Backend) WatchLapses(ctx context.Context, lapsed func()) {
	addUntil(ctx, &b.watch.mu, &b.watch.lapses, &lapsed)
}

// addUntil adds fn to set (made if it is nil) until ctx is done; mu
// guards set.
func addUntil[F any](ctx context.Context, mu *sync.Mutex, set *map[*F]struct{}, fn *F) {
	mu.Lock()
	if *set == nil {
		*set = make(map[*F]struct{})
	}
	(*set)[fn] = struct{}{}
	mu.Unlock()
	context.AfterFunc(ctx, func() {
		mu.Lock()
		delete(*set, fn)
		mu.Unlock()
	})
}

// lapse tells the lapses' watchers that the listener lost its server.
func (w *pgWatch) lapse() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for fn := range w.lapses {
		(*fn)()
	}
}

// local tells the watchers of this node's own change, before the write
// returns, so that the very next request sees it.
func (w *pgWatch) local(keys []string) { w.tell(keys) }

func (w *pgWatch) tell(keys []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for fn := range w.watchers {
		(*fn)(keys)
	}
}

// reconnect cuts the listener's pause short: the server answers again, and
// until the listener reads the history other nodes' changes go unseen.
func (w *pgWatch) reconnect() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// listen keeps a connection that follows the history, until ctx is
// done. A connection lost after it followed for pgWatchPauseMin is
// replaced at once, from whichever server answers (changes committed
// just before the primary died are on its synchronous standby); after a
// failed attempt it waits, a pause that grows to pgWatchPauseMax while no
// server answers (cut short when a pool reaches one again).
func (w *pgWatch) listen(ctx context.Context, b *Backend) {
	var (
		cur     pgCursor
		pause   = pgWatchPauseMin
		lastErr string
	)
	for ctx.Err() == nil {
		var following time.Time // when the session began to follow; zero if it did not
		fallback, err := w.session(ctx, b, &cur, func() { pause, following = pgWatchPauseMin, time.Now() })
		if ctx.Err() != nil {
			return
		}
		if !following.IsZero() && !errors.Is(err, errFollowAgain) {
			w.lapse()
		}
		b.follow.disconnected()
		if !fallback && pgNotReachable(err) {
			b.reads.setUp(false, err)
		}
		if msg := err.Error(); msg != lastErr && !errors.Is(err, errFollowAgain) {
			b.logger.Warn("store postgres: change listener disconnected; reconnecting", zap.String("schema", b.schema), zap.Error(err))
			lastErr = msg
		}
		select {
		case <-w.wake: // from while the session ran: the server is away now
		default:
		}
		if errors.Is(err, errFollowAgain) || !following.IsZero() && time.Since(following) >= pgWatchPauseMin {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		case <-time.After(pause):
		}
		pause = min(2*pause, pgWatchPauseMax)
	}
}

// pgWatchPauseMin is the listener's first pause after a failed attempt
// to follow the history, and how long a session must have followed for
// its loss to be followed by a new attempt at once (a server that drops
// every connection at once is not asked in a loop).
const pgWatchPauseMin = 100 * time.Millisecond

// pgWatchPauseMax is the longest pause between the listener's attempts
// to reach a server while none answers: a node learns of the changes it
// missed at most that long after one answers again, or at once when one
// of its pools reaches it first.
const pgWatchPauseMax = 5 * time.Second

// errFollowAgain ends a session that should reconnect at once: the
// server it follows was promoted, or it was a fallback and the preferred
// servers may answer again.
var errFollowAgain = errors.New("following the history from another server")

// pgFallbackFor is how long the listener follows a server that is not of
// the kind the DSN asks for (a standby, while the primary is away) before
// it tries the DSN's own choice again.
const pgFallbackFor = 5 * time.Second

// connect connects to the server of the reads' DSN to follow the
// history, or, when none of the kind it asks for answers (its
// target_session_attrs; read-write while the primary is away), to any of
// its servers that answers: a standby still replays what the primary
// committed, and a synchronous one holds all of it. fallback says which.
func (w *pgWatch) connect(ctx context.Context, b *Backend) (conn *pgx.Conn, fallback bool, err error) {
	cfg := b.reads.Config().ConnConfig.Copy()
	cfg.RuntimeParams["application_name"] = pgListenerName
	cctx, cancel := context.WithTimeout(ctx, b.timeout)
	conn, err = pgx.ConnectConfig(cctx, cfg)
	cancel()
	if err == nil || cfg.ValidateConnect == nil || ctx.Err() != nil {
		return conn, false, err
	}
	cfg.ValidateConnect = nil
	cctx, cancel = context.WithTimeout(ctx, b.timeout)
	defer cancel()
	if conn, ferr := pgx.ConnectConfig(cctx, cfg); ferr == nil {
		return conn, true, nil
	}
	return nil, false, err
}

// session connects, listens if the server is the primary, and reads the
// changes until the connection fails, or the server it follows changes
// role. connected is called once it follows.
func (w *pgWatch) session(ctx context.Context, b *Backend, cur *pgCursor, connected func()) (fallback bool, err error) {
	conn, fallback, err := w.connect(ctx, b)
	if err != nil {
		return false, err
	}
	defer conn.Close(context.Background())
	rctx, cancel := context.WithTimeout(ctx, b.timeout)
	var standby bool
	err = conn.QueryRow(rctx, "SELECT pg_is_in_recovery()").Scan(&standby)
	if err == nil {
		err = b.followReady(rctx, conn)
	}
	if err == nil && !standby {
		_, err = conn.Exec(rctx, "LISTEN "+pgx.Identifier{w.channel(b.schema)}.Sanitize())
	}
	if err == nil {
		// Changes made while this node was not following.
		err = w.catchUp(rctx, conn, b, cur)
	}
	cancel()
	if err != nil {
		return fallback, err
	}
	connected()
	if !fallback {
		b.reads.setUp(true, nil)
	}
	began := time.Now()
	poll := pgWatchPoll
	if standby {
		poll = pgStandbyPoll // no NOTIFY reaches a standby
	}
	read := began // when the last read of the history began
	for {
		wctx, cancel := context.WithDeadline(ctx, read.Add(poll))
		_, err := conn.WaitForNotification(wctx)
		polled := wctx.Err() != nil && ctx.Err() == nil // no NOTIFY for poll: read anyway
		cancel()
		if err != nil && !polled {
			return fallback, err
		}
		read = time.Now()
		rctx, cancel := context.WithTimeout(ctx, b.timeout)
		err = w.catchUp(rctx, conn, b, cur)
		cancel()
		switch {
		case err != nil:
			return fallback, err
		case standby && !b.follow.state().Standby:
			return fallback, errFollowAgain // promoted: listen to it
		case fallback && time.Since(began) > pgFallbackFor:
			return fallback, errFollowAgain
		}
	}
}

// pgStandbyPoll is how often the listener reads the history on a
// standby, where no NOTIFY tells it to: from the start of one read to the
// next's, so that a node whose last read began before a pause (a process
// stopped, a machine stalled) reads again as soon as it goes on, rather
// than a whole poll later.
const pgStandbyPoll = 200 * time.Millisecond

// followReady makes sure the schema is there before the history is
// followed on conn: migrated through the primary's pool, or, while the
// primary is away, found at this code's version on conn's server.
func (b *Backend) followReady(ctx context.Context, conn *pgx.Conn) error {
	if b.migrated.Load() || b.readsMigrated.Load() {
		return nil
	}
	err := b.ready(ctx)
	if err == nil {
		return nil
	}
	var version int
	if conn.QueryRow(ctx, pgSQL(b.schema, "SELECT version FROM @.schema_version")).Scan(&version) == nil && version == len(pgMigrations) {
		return nil
	}
	return err
}

// pgListenerName is the application_name of the listeners' connections.
const pgListenerName = "caddy-ark listener"

// pgCursor is how far a node has read the history.
type pgCursor struct {
	read    bool     // whether the history was read once
	seq     int64    // the highest sequence number read
	topXid  string   // the transaction of that record
	running []string // ids of the transactions running at that read, below xmax
	xmax    string   // the first transaction id that read could not see, and all after it
}

// catchUp reads the changes since cur and tells the watchers, and notes
// what it saw of the server in b.follow.
func (w *pgWatch) catchUp(ctx context.Context, conn *pgx.Conn, b *Backend, cur *pgCursor) error {
	schema := b.schema
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	var (
		top          int64
		topXid, xmax string
		running      []string
		lastXid      *string // the transaction of the record cur.seq, nil if there is none
		server       pgServerState
	)
	if err := tx.QueryRow(ctx, pgSQL(schema, `SELECT coalesce(max(seq), 0), coalesce((array_agg(xid::text ORDER BY seq DESC))[1], ''),
		ARRAY(SELECT x::text FROM pg_snapshot_xip(pg_current_snapshot()) x),
		pg_snapshot_xmax(pg_current_snapshot())::text,
		(SELECT xid::text FROM @.history WHERE seq = $1),
		`+pgServerStateSQL+`
		FROM (SELECT seq, xid FROM @.history ORDER BY seq DESC LIMIT 1) top`), cur.seq).Scan(&top, &topXid, &running, &xmax, &lastXid,
		&server.Standby, &server.ReplayLag, &server.Receiving); err != nil {
		return err
	}
	defer func() { b.follow.readAt(b.schema, server, cur.seq) }()
	next := pgCursor{read: true, seq: top, topXid: topXid, running: running, xmax: xmax}
	if !cur.read || top < cur.seq || cur.seq > 0 && (lastXid == nil || *lastXid != cur.topXid) {
		// The first read, which cannot vouch for lookups made before it,
		// or a history that went back or no longer holds the last record
		// read, as it was: the database was restored, replaced, or failed
		// over to a replica that had not received everything.
		*cur = next
		w.tell(nil)
		return nil
	}
	rows, err := tx.Query(ctx, pgSQL(schema, `SELECT DISTINCT key FROM (
		SELECT key FROM @.history WHERE seq > $1 AND seq <= $2
		UNION ALL
		SELECT key FROM @.history WHERE (xid = ANY($3::text[]::xid8[]) OR xid >= $4::text::xid8) AND seq <= $1) c LIMIT $5`),
		cur.seq, top, cur.running, cur.xmax, pgWatchMax+1)
	if err != nil {
		return err
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	*cur = next
	switch {
	case len(keys) > pgWatchMax:
		w.tell(nil)
	case len(keys) > 0:
		w.tell(keys)
	}
	return nil
}

// WatchLapses implements store.Lapsing.
func (s *Store) WatchLapses(ctx context.Context, lapsed func()) {
	s.backend.(*Backend).WatchLapses(ctx, lapsed)
}

// Interface guards.
var (
	_ store.Lapsing = (*Store)(nil)
	_ store.Lapsing = (*Backend)(nil)
)
