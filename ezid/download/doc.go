// Package download is EZID's batch download (the EZID API's
// /download_request): its three formats, ANVL, CSV and XML, written and
// read on neutral records (an identifier and its elements in order),
// their gzip or zip compression, the request's parameters with EZID's own
// words for a refusal, the selection of records by its constraints, and
// the jobs that write a download to a file that appears at the URL the
// request was answered with once it is complete. Reading the formats is
// what `caddy ark import` and the API's import use for EZID's downloads.
//
// It knows nothing of stores or accounts: a download's records come from
// a Source, and who may download whose identifiers is the caller's
// question (Accounts).
package download
