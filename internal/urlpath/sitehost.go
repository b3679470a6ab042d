package urlpath

import "strings"

// SiteHost is the host name the target checker gives the URLs of its
// in-place checks, which it asks of the site itself: no target may name
// it, and no redirect from the network may lead to it.
const SiteHost = "site.internal.invalid"

// IsSiteHost reports whether hostname (a URL's host without its port, as
// url.URL.Hostname gives it) is SiteHost in any spelling: any case, with
// or without a trailing dot.
func IsSiteHost(hostname string) bool {
	return strings.EqualFold(strings.TrimRight(hostname, "."), SiteHost)
}
