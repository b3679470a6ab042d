package testkit

import (
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// Link is a TCP relay from a loopback port of its own to a server's, for
// tests of a network that loses what a server sends: a client connects
// to Port as it would to the server. A connection the server closes (it
// died) is closed to the client too.
type Link struct {
	// Port is the link's loopback port.
	Port int

	to   string
	ln   net.Listener
	deaf atomic.Bool
	wg   sync.WaitGroup
}

// StartLink starts a link to the server on loopback port port, stopped
// (its connections closed) when the test ends.
func StartLink(t testing.TB, port int) *Link {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &Link{Port: ln.Addr().(*net.TCPAddr).Port, to: "127.0.0.1:" + strconv.Itoa(port), ln: ln}
	var (
		mu    sync.Mutex
		conns []net.Conn
	)
	l.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", l.to)
			if err != nil {
				c.Close() // the server is gone: so is the connection
				continue
			}
			mu.Lock()
			conns = append(conns, c, s)
			mu.Unlock()
			l.wg.Go(func() { l.relay(c, s, false) })
			l.wg.Go(func() { l.relay(s, c, true) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		l.wg.Wait()
	})
	return l
}

// Deafen makes the link lose, from now on, everything the server sends,
// while what the clients send still reaches it: a client waits for
// answers, and notifications, that never come, until the server closes
// the connection.
func (l *Link) Deafen() { l.deaf.Store(true) }

// relay copies from src to dst until either end closes, then closes
// both; fromServer says that src is the server, whose data is lost
// while the link is deaf.
func (l *Link) relay(src, dst net.Conn, fromServer bool) {
	defer src.Close()
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !(fromServer && l.deaf.Load()) {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
