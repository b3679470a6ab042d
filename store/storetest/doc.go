// Package storetest is the conformance suite that every store.Store backend
// passes: each backend's tests call Run with a way to open a new, empty store
// of that backend and to reopen one over the same data. It is imported only
// by tests.
package storetest
