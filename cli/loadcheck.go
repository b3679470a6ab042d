package cli

import (
	"fmt"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// checkDumpBinding refuses a bound binding of a dump that no write makes:
// a status or a target that no table entry may have, such as a permanent
// redirect; a dump holding one was edited by hand. The rule of in-place
// targets that keys and imports keep (table.CheckUntrustedInPlace) does
// not apply: a dump is the operator's, as a table file is, and it holds
// what the store held.
func checkDumpBinding(it *store.Item) error {
	b := it.Binding
	if b == nil || b.State() != store.StateBound {
		return nil
	}
	if _, err := table.EntryStatus(b.Target, b.Status); err != nil {
		return fmt.Errorf("%s: %w", b.Key, err)
	}
	return nil
}
