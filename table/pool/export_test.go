package pool

import "github.com/caddy-ark/caddy-ark/table"

// Pooled returns the tables in the pool, for the tests of package
// pool_test.
func Pooled() []table.Table {
	var ts []table.Table
	tables.Range(func(_, v any) bool { ts = append(ts, v.(pooledTable).t); return true })
	return ts
}
