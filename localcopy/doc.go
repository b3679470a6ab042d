// Package localcopy keeps a node's own copy of a store's bindings in a
// directory of its own, so that the node resolves every identifier the
// store holds without asking the store, and through the store's outages.
//
// A copy is a base file, every binding sorted by key as the store's Each
// gave them, and a journal of the changes applied since, read from the
// store's history (Historian.Changes) in sequence order after the last
// applied sequence number, each once. Both are written ahead of being
// served and synced to disk: a node restarted serves at once, checks its
// copy in the background and goes on from its sequence number (lookups
// go to the store until the copy has caught up, or found no server), and
// a torn write is cut off, never read as an answer. Now and then the journal is folded into a new base,
// renamed into place.
//
// Store presents a copy as a store.Store: lookups read the copy, writes go
// to the store and are applied to the copy before they return, and its
// Watch tells of what the copy applied, so that caches in front of it
// never outlive what the copy knows.
package localcopy
