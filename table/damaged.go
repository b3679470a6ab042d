package table

// Damaged reports whether a lookup found t's compiled table damaged or
// changed in place while mapped (it then answers unreadable for what it
// may hold until a good file replaces it). A table read into memory is
// never damaged.
func Damaged(t Table) bool {
	switch t := t.(type) {
	case *Compiled:
		return t.damaged.Load()
	case *layeredTable:
		return t.base.damaged.Load()
	}
	return false
}
