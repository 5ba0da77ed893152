package model

import (
	"context"
	"net"
	"os"
	"sync"
	"syscall"
)

// network is an in-memory network of net.Pipe connections: Dial hands one end
// to the caller and the other to Accept. A down network refuses dials, as a host
// whose server process is gone answers with a reset.
type network struct {
	accept chan net.Conn
	done   chan struct{}
	once   sync.Once

	mu    sync.Mutex
	down  bool
	conns map[net.Conn]struct{} // server ends not yet closed
}

func newNetwork() *network {
	return &network{accept: make(chan net.Conn), done: make(chan struct{}), conns: map[net.Conn]struct{}{}}
}

// errRefused is what a dial to a down server returns.
var errRefused = &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}

// DialContext connects to the server, blocking until it accepts or ctx ends.
func (n *network) DialContext(ctx context.Context, _, _ string) (net.Conn, error) {
	n.mu.Lock()
	down := n.down
	n.mu.Unlock()
	if down {
		return nil, errRefused
	}
	client, server := net.Pipe()
	select {
	case n.accept <- &trackedConn{Conn: server, n: n}:
		return client, nil
	case <-ctx.Done():
		client.Close()
		server.Close()
		return nil, ctx.Err()
	case <-n.done:
		client.Close()
		server.Close()
		return nil, errRefused
	}
}

// Accept returns the server end of the next connection.
func (n *network) Accept() (net.Conn, error) {
	select {
	case c := <-n.accept:
		n.mu.Lock()
		n.conns[c] = struct{}{}
		n.mu.Unlock()
		return c, nil
	case <-n.done:
		return nil, net.ErrClosed
	}
}

// Close stops Accept for good.
func (n *network) Close() error {
	n.once.Do(func() { close(n.done) })
	return nil
}

func (n *network) Addr() net.Addr { return pipeAddr{} }

// setDown refuses (or again accepts) new connections; going down closes every
// open one, which the client sees as a reset.
func (n *network) setDown(down bool) {
	n.mu.Lock()
	n.down = down
	var open []net.Conn
	if down {
		for c := range n.conns {
			open = append(open, c)
		}
	}
	n.mu.Unlock()
	for _, c := range open {
		c.Close()
	}
}

// trackedConn leaves the network's set of open connections when closed.
type trackedConn struct {
	net.Conn
	n    *network
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.n.mu.Lock()
		delete(c.n.conns, c)
		c.n.mu.Unlock()
	})
	return c.Conn.Close()
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "model" }

var _ net.Listener = (*network)(nil)
