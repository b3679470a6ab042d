package resolve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// An identifier has one source: a table (file or Caddyfile map) or the
// store, never both. The store's withdrawals are authoritative: an
// identifier withdrawn there is never assigned again, by a table either.
// The API refuses to write an identifier that a table assigns; CheckSources
// refuses a table that assigns an identifier the store holds (bound, minted
// or withdrawn). Templates are not assignments: they cover what no table
// or store assigns.

// maxConflictsReported bounds how many conflicts one error lists.
const maxConflictsReported = 20

// errEnough stops the pass over the store once enough conflicts are known.
var errEnough = errors.New("enough conflicts")

// SourceConflictError is a table that assigns identifiers the store holds.
type SourceConflictError struct {
	// Conflicts name both sides of each conflict, at most
	// maxConflictsReported of them.
	Conflicts []string
	// More reports whether there were more conflicts than are named.
	More bool
}

func (e *SourceConflictError) Error() string {
	msg := strings.Join(e.Conflicts, "; ")
	if e.More {
		msg += fmt.Sprintf("; and more (the first %d are named)", len(e.Conflicts))
	}
	return msg
}

// Bindings is what CheckSources reads of a store: every binding, once.
// store.Store is one.
type Bindings interface {
	Each(ctx context.Context, fn func(*store.Binding) error) error
}

// CheckSources refuses a table that assigns an identifier the store holds,
// naming both sides: the table's entry (file and line, or Caddyfile line)
// and the store's binding (its state and version). It reads the store's
// bindings once and asks the table about each, so a compiled table of any
// size is checked without being read.
func CheckSources(ctx context.Context, t table.Table, s Bindings) error {
	conflict := &SourceConflictError{}
	err := s.Each(ctx, func(b *store.Binding) error {
		if _, ok := t.Lookup(b.Key); !ok {
			return nil
		}
		if len(conflict.Conflicts) == maxConflictsReported {
			conflict.More = true
			return errEnough
		}
		where, _ := table.Where(t, b.Key)
		conflict.Conflicts = append(conflict.Conflicts, fmt.Sprintf("%s: %s is %s in the store%s: an identifier has one source, so the table may not assign it",
			where, b.Key, b.State(), versionOf(b)))
		return nil
	})
	if err != nil && err != errEnough {
		return fmt.Errorf("checking the table against the store: %w", err)
	}
	if len(conflict.Conflicts) > 0 {
		return conflict
	}
	return nil
}

// versionOf names the version of a binding, when it is known.
func versionOf(b *store.Binding) string {
	if b.Version == 0 {
		return ""
	}
	return fmt.Sprintf(" (version %d, by %s at %s)", b.Version, b.By, b.Updated.UTC().Format(time.RFC3339))
}
