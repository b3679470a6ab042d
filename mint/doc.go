// Package mint makes new names for shoulders: Noid templates (with the NCDA
// check character), sequential and random minting, and the rule that a
// minted name is new, never in the store and never assigned by a table. It
// keeps its counters in a store.Store and counts into the process metrics;
// it knows nothing of HTTP or the handler.
package mint
