package store

import "context"

// Lapsing is a store whose Watch hears of other nodes' changes over a
// connection that can be lost (the PostgreSQL store's listener): while
// it is lost, changes go unheard; once Watch follows again it tells of
// those it missed, but a node that asks nothing meanwhile answers what it
// last knew. A local copy listens for the lapses, to read the history at
// once from whichever server answers.
type Lapsing interface {
	// WatchLapses calls lapsed each time Watch stops hearing of other
	// nodes' changes (the connection it follows them on was lost), until
	// ctx is done. It returns at once; lapsed must not block.
	WatchLapses(ctx context.Context, lapsed func())
}
