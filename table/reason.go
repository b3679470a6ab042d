package table

// ReasonMeta is the metadata key that says why an identifier is withdrawn.
// A table's withdrawn entry (status 410) gives its reason there, and ?info
// shows it; a store keeps it as the binding's Reason, and it travels in
// this key through every export and import (importer.EntryOf and
// importer.Binding), so that a withdrawal reads back as the same
// withdrawal.
const ReasonMeta = "reason"
