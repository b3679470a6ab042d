package targets

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// errPrivate refuses to connect to an address that is not public.
var errPrivate = errors.New("a loopback, private, link-local or unspecified address is not checked without allow_private")

// publicOnly is a net.Dialer Control function that refuses every address
// that is not public: it runs on the address actually dialled, after
// DNS, so that a name resolving to 127.0.0.1 is refused as 127.0.0.1 is.
func publicOnly(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return errPrivate // not an IP address: nothing to dial that can be told public
	}
	if !public(ap.Addr()) {
		return errPrivate
	}
	return nil
}

// public reports whether a is an address on the public internet.
func public(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsGlobalUnicast() && !a.IsPrivate() && !a.IsLoopback() && !a.IsLinkLocalUnicast() &&
		!sharedSpace.Contains(a) && !a.IsUnspecified()
}

// sharedSpace is the carrier-grade NAT range (RFC 6598), private in all but
// name.
var sharedSpace = netip.MustParsePrefix("100.64.0.0/10")

// newDialer returns the dial function of the checks: a dialer bounded by
// timeout that, unless allowPrivate, dials public addresses only, and
// dials the addresses of a request's addrs (withAddrs), in their order,
// rather than resolving the name again.
func newDialer(timeout time.Duration, allowPrivate bool) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		d.Control = publicOnly
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		a, ok := ctx.Value(addrsKey{}).(addrs)
		if !ok {
			return d.DialContext(ctx, network, addr)
		}
		var first error
		for _, ip := range a.ips {
			c, err := d.DialContext(ctx, network, netip.AddrPortFrom(ip, a.port).String())
			if err == nil {
				return c, nil
			}
			if first == nil {
				first = err
			}
			if ctx.Err() != nil {
				break
			}
		}
		return nil, first
	}
}
