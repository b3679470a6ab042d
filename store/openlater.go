package store

// OpenLater is what a module that provisions a store module may put in
// the provisioning context under OpenLaterKey: the store then does not
// open its file or connection in Provision but gives the step that does
// to OpenLater, to be taken once the configuration runs (`caddy validate`
// provisions a configuration without running it, and must touch no
// store). Until that step has returned nil, only Cleanup may be called.
type OpenLater func(open func() error)

// OpenLaterKey is the context key of an OpenLater.
type OpenLaterKey struct{}
