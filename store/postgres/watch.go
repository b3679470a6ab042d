package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"
)

// pgWatchMax is the most changes a node reads back one by one; when more
// happened since it last read (a large import, a long disconnection), it
// forgets everything instead.
const pgWatchMax = 1000

// pgWatch tells a backend's watchers of changes: its own writes at once,
// other nodes' from the history, read again whenever a NOTIFY arrives on a
// connection of its own and after every reconnection.
//
// The history's sequence numbers are handed out before commit. This
// version's writers take lockHistory, so that records become visible in
// their order, but a node of an earlier version took no lock: its record
// may become visible after one with a higher number was read. Each read
// therefore also takes what its snapshot could not see: the transactions
// still running below its xmax, and every transaction from xmax on (a
// writer that got its id after another's but its number before it is not
// among the running ones). The next read fetches those transactions'
// records whatever their number.
//
// The listener reads the history at least every pgWatchPoll even when no
// NOTIFY comes: a notification can be lost with its connection, and a
// connection that silently stopped carrying data (a firewall that forgot
// it) fails that read within the store's timeout and is replaced.
type pgWatch struct {
	mu       sync.Mutex
	watchers map[*func([]string)]struct{}

	cancel context.CancelFunc
	done   chan struct{}
	wake   chan struct{} // the pool reached the server again: reconnect now
}

// pgWatchPoll is the longest a listener waits for a NOTIFY before it reads
// the history anyway.
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
	w := &b.watch
	w.mu.Lock()
	if w.watchers == nil {
		w.watchers = make(map[*func([]string)]struct{})
	}
	w.watchers[&changed] = struct{}{}
	w.mu.Unlock()
	context.AfterFunc(ctx, func() {
		w.mu.Lock()
		delete(w.watchers, &changed)
		w.mu.Unlock()
	})
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

// listen keeps a connection that LISTENs for changes, reconnecting after
// a pause that grows to 5s while the server is away (cut short when the
// pool reaches it again), until ctx is done.
func (w *pgWatch) listen(ctx context.Context, b *Backend) {
	var (
		cur     pgCursor
		pause   = 100 * time.Millisecond
		lastErr string
	)
	for ctx.Err() == nil {
		err := w.session(ctx, b, &cur, func() { pause = 100 * time.Millisecond })
		if ctx.Err() != nil {
			return
		}
		if pgNotReachable(err) {
			b.setUp(false, err)
		}
		if msg := err.Error(); msg != lastErr {
			b.logger.Warn("store postgres: change listener disconnected; reconnecting", zap.String("schema", b.schema), zap.Error(err))
			lastErr = msg
		}
		select {
		case <-w.wake: // from while the session ran: the server is away now
		default:
		}
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		case <-time.After(pause):
		}
		pause = min(2*pause, 5*time.Second)
	}
}

// session connects, listens and reads the changes until the connection
// fails. connected is called once it listens.
func (w *pgWatch) session(ctx context.Context, b *Backend, cur *pgCursor, connected func()) error {
	cctx, cancel := context.WithTimeout(ctx, b.timeout)
	cfg := b.pool.Config().ConnConfig.Copy()
	cfg.RuntimeParams["application_name"] = pgListenerName
	conn, err := pgx.ConnectConfig(cctx, cfg)
	cancel()
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	rctx, cancel := context.WithTimeout(ctx, b.timeout)
	err = b.ready(rctx)
	if err == nil {
		_, err = conn.Exec(rctx, "LISTEN "+pgx.Identifier{w.channel(b.schema)}.Sanitize())
	}
	if err == nil {
		// Changes made while this node was not listening.
		err = w.catchUp(rctx, conn, b.schema, cur)
	}
	cancel()
	if err != nil {
		return err
	}
	connected()
	b.setUp(true, nil)
	for {
		wctx, cancel := context.WithTimeout(ctx, pgWatchPoll)
		_, err := conn.WaitForNotification(wctx)
		polled := wctx.Err() != nil && ctx.Err() == nil // no NOTIFY for pgWatchPoll: read anyway
		cancel()
		if err != nil && !polled {
			return err
		}
		rctx, cancel := context.WithTimeout(ctx, b.timeout)
		err = w.catchUp(rctx, conn, b.schema, cur)
		cancel()
		if err != nil {
			return err
		}
	}
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

// catchUp reads the changes since cur and tells the watchers.
func (w *pgWatch) catchUp(ctx context.Context, conn *pgx.Conn, schema string, cur *pgCursor) error {
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
	)
	if err := tx.QueryRow(ctx, pgSQL(schema, `SELECT coalesce(max(seq), 0), coalesce((array_agg(xid::text ORDER BY seq DESC))[1], ''),
		ARRAY(SELECT x::text FROM pg_snapshot_xip(pg_current_snapshot()) x),
		pg_snapshot_xmax(pg_current_snapshot())::text,
		(SELECT xid::text FROM @.history WHERE seq = $1)
		FROM (SELECT seq, xid FROM @.history ORDER BY seq DESC LIMIT 1) top`), cur.seq).Scan(&top, &topXid, &running, &xmax, &lastXid); err != nil {
		return err
	}
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
