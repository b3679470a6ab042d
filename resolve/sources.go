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

// KeyLookup is what CheckSources asks a store that can look keys up (a
// store.Store) about a small table's keys.
type KeyLookup interface {
	Lookup(ctx context.Context, keys []string) ([]*store.Binding, error)
}

// Copied is a store read through a copy of it that may be behind it (a
// local copy, localcopy.Store, right after a restart): CheckSources asks
// the store itself, since what the store holds is what the rule is about.
type Copied interface {
	// Original returns the store the copy is of.
	Original() store.Store
}

// Sized is what CheckSources asks a store (a store.Store) about its size
// before it checks a table of more than smallTable keys.
type Sized interface {
	// SizeHint returns about how many bindings the store holds, and
	// false when it cannot tell cheaply.
	SizeHint(ctx context.Context) (n int64, ok bool)
}

// smallTable is the most keys a table may have for CheckSources to look
// them up in a store that can (KeyLookup) whatever the store's size;
// lookupBatch is how many keys it asks for at a time. A larger table is
// looked up by its keys when the store holds at least keyCost bindings
// for each of them: a key looked up, lookupBatch at a time, costs about
// two bindings read in the pass over the store (at 10^6: 1.1 against
// 0.6 µs on bbolt, 1.9 against 1.4 µs on PostgreSQL on loopback).
const (
	smallTable  = 100_000
	lookupBatch = 500
	keyCost     = 2
)

// byKeys says whether CheckSources looks t's keys up in s rather than
// reading s whole: s can look keys up, and t is small, or small beside
// s.
func byKeys(ctx context.Context, t table.Table, s Bindings) bool {
	if _, ok := s.(KeyLookup); !ok {
		return false
	}
	if t.Len() <= smallTable {
		return true
	}
	sized, ok := s.(Sized)
	if !ok {
		return false
	}
	n, ok := sized.SizeHint(ctx)
	return ok && int64(t.Len())*keyCost <= n
}

// CheckSources refuses a table that assigns an identifier the store holds,
// naming both sides: the table's entry (file and line, or Caddyfile line)
// and the store's binding (its state and version). A table of at most
// smallTable keys, or a larger one beside a store that holds at least
// keyCost bindings for each of its keys (Sized), is checked by looking
// its keys up in the store, when the store can (KeyLookup), lookupBatch
// at a time: a configuration starts, and a table is swapped in, without
// reading a store of millions. Otherwise it reads the store's bindings
// once and asks the table about each, so a compiled table that is large
// beside the store is checked without being read.
// A store read through a copy (Copied) is asked itself, not its copy.
func CheckSources(ctx context.Context, t table.Table, s Bindings) error {
	if c, ok := s.(Copied); ok {
		s = c.Original()
	}
	conflict := &SourceConflictError{}
	found := func(b *store.Binding) error {
		if len(conflict.Conflicts) == maxConflictsReported {
			conflict.More = true
			return errEnough
		}
		where, _ := table.Where(t, b.Key)
		conflict.Conflicts = append(conflict.Conflicts, fmt.Sprintf("%s: %s is %s in the store%s: an identifier has one source, so the table may not assign it",
			where, b.Key, b.State(), versionOf(b)))
		return nil
	}
	readWhole := func() error {
		return s.Each(ctx, func(b *store.Binding) error {
			if _, ok := t.Lookup(b.Key); !ok {
				return nil
			}
			return found(b)
		})
	}
	var err error
	if byKeys(ctx, t, s) {
		err = lookUpKeys(ctx, t, s.(KeyLookup), found)
		if errors.Is(err, store.ErrUnavailable) {
			// A batch the store did not answer within its timeout: the
			// pass, which no timeout bounds, may still finish, and a
			// store that does not answer at all fails it at once.
			*conflict = SourceConflictError{}
			err = readWhole()
		}
	} else {
		err = readWhole()
	}
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

// lookUpKeys calls found with the store's binding of each key of t that
// the store holds, in t's order. A table that yields fewer keys than it
// has (a compiled file damaged past its check at open, whose iteration
// ends at the damage) is refused as damaged: the keys it did not yield
// were not checked.
func lookUpKeys(ctx context.Context, t table.Table, l KeyLookup, found func(*store.Binding) error) error {
	keys := make([]string, 0, lookupBatch)
	flush := func() error {
		if len(keys) == 0 {
			return nil
		}
		bs, err := l.Lookup(ctx, keys)
		if err != nil {
			return err
		}
		keys = keys[:0]
		for _, b := range bs {
			if b != nil {
				if err := found(b); err != nil {
					return err
				}
			}
		}
		return nil
	}
	yielded := 0
	for key := range t.All() {
		yielded++
		keys = append(keys, key)
		if len(keys) == lookupBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if yielded < t.Len() {
		return fmt.Errorf("%w: its entry %d of %d cannot be read", table.ErrDamaged, yielded+1, t.Len())
	}
	return flush()
}
