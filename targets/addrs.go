package targets

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"time"
)

// addrs are the addresses that a request's host name resolved to, with
// the port it names: the request waits for the turn of each (politeness
// holds per server, however many names it has), and its connection is
// dialled to one of them, never to what a second lookup might say.
type addrs struct {
	ips  []netip.Addr
	port uint16
}

// addrsKey holds, in a request's context, the addrs its dial is kept to.
type addrsKey struct{}

// lookupAddrs resolves the host of u, within timeout.
func lookupAddrs(ctx context.Context, u *url.URL, timeout time.Duration) (addrs, error) {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return addrs{}, fmt.Errorf("port %q: %w", port, err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", u.Hostname())
	if err != nil {
		return addrs{}, err
	}
	if len(ips) == 0 {
		return addrs{}, &net.DNSError{Err: "no such host", Name: u.Hostname(), IsNotFound: true}
	}
	for i, ip := range ips {
		ips[i] = ip.Unmap() // ::ffff:127.0.0.1 is 127.0.0.1
	}
	return addrs{ips: ips, port: uint16(p)}, nil
}

// keys returns the gates' keys of a's addresses ("192.0.2.1:443",
// "[2001:db8::1]:443"), sorted and each once: requests that wait for
// several turns take them in one order, so that none holds a turn that
// another holds one before.
func (a addrs) keys() []string {
	keys := make([]string, 0, len(a.ips))
	for _, ip := range a.ips {
		keys = append(keys, netip.AddrPortFrom(ip, a.port).String())
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// withAddrs keeps the dial of the request of ctx to a.
func withAddrs(ctx context.Context, a addrs) context.Context {
	return context.WithValue(ctx, addrsKey{}, a)
}
