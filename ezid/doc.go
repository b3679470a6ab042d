// Package ezid speaks EZID's API, version 2 (shared/specs/ezid-api-v2.rst),
// for the identifiers of a site, so that software written for EZID works
// against caddy-ark by changing its base URL (docs/moving-from-ezid.md).
// Server answers its requests as one more caller of the site's API core;
// Elements and Apply map an identifier's EZID elements to and from a
// store.Binding, for the server, the batch download and the importers of
// EZID's downloads alike; the anvl package reads and writes the bodies.
// Where EZID's API document is silent (the words of an error, what a
// client sends), EZID's own server is the reference.
//
// How EZID's states live in a store (docs/moving-from-ezid.md says the
// same for users):
//
//   - reserved: a binding with Status 0, the store's "minted, not bound"
//     state, keeping its target (if given) and metadata. The resolver
//     answers it as not resolvable, OAI-PMH and signposting skip it, and
//     minting never hands its name out (store.Reserve refuses a taken
//     key). Making it public gives it its status (302) and target.
//   - public: a bound binding (status 200, 302, 303 or 307) without
//     store.StatusMeta.
//   - unavailable | reason: a bound binding, target kept, whose metadata
//     has store.StatusMeta "unavailable | <reason>". Every path that
//     answers from a store honours the key (resolve, ?info, signposting,
//     OAI-PMH answer a tombstone with the reason), and the key is
//     ordinary metadata otherwise, so exports and imports carry it and
//     EZID's "_status: public" (removing it) makes the identifier resolve
//     again, as EZID allows.
//   - A native withdrawal (status 410) is final: the EZID view shows it
//     as "unavailable | <reason>", and every change through EZID's API is
//     refused with the reason (ErrWithdrawn).
//   - A deleted reserved identifier stays in the store as a bare Status 0
//     binding marked DeletedMeta (no target, no other metadata): its name
//     is never minted or created again, EZID's API answers "no such
//     identifier" for it, and the history keeps what it was.
//
// The other internal elements: _target is the binding's Target (EZID's
// default, the identifier's EZID URL, when none is given); _profile,
// _export ("no" only), _owner, _ownergroup and _created are metadata
// under their own names; _updated is the binding's Updated, or, for a
// binding not changed since it was imported (version 1), the _updated
// that the import kept. Every other element (erc.*, dc.*, datacite.*,
// the whole-record datacite XML, anything of the client's own) is
// metadata under its own name, which the metadata model reads
// (docs/metadata-model.md).
package ezid
