// Package oai is an OAI-PMH 2.0 provider over a site's identifiers: the
// entries of its table and the bindings of its store, as one repository.
// It answers the six verbs at one path, GET and POST, with the metadata
// formats oai_dc (metadata/dc) and oai_datacite (metadata/datacite in
// DataCite's OAI envelope), both from the one crosswalk of package
// metadata.
//
// The OAI identifier of a record is its normalized ARK or URN
// ("ark:12345/x5wf6789"). Sets are hierarchical, ":" separating levels as
// the setSpec grammar asks: "ark" holds every ARK, "ark:12345" those of a
// NAAN, "ark:12345:x5" those of a shoulder (first-digit convention);
// "urn" and "urn:nbn" likewise. Each set's setName is its prefix
// ("ark:12345/x5").
//
// Datestamps: a store record's is its last change (its history); a table
// entry's is when the table last changed: the latest modification time of
// the table files, or, with entries in the configuration itself, when
// that configuration was loaded if it is later. A withdrawn identifier
// (status 410) is a deleted record, forever. A minted name not yet bound
// is no record.
//
// Lists read the store's history in commit order, then the table, a page
// at a time; a resumption token is a cursor into them (the last history
// sequence number taken, the position in the table), never a snapshot
// held by the server, so it survives writes and restarts. An identifier
// changed several times is listed once, at its latest change; a list
// holds what changed before the second it was asked for began (the
// responseDate's second), so that a harvest from that responseDate finds
// the rest, and each change once.
package oai
