package apiserver

import (
	"errors"
	"net"
	"os"
	"testing"
	"time"
)

// deadlineConn records the write deadlines set on it; its writes fail
// with a timeout once fail is set.
type deadlineConn struct {
	net.Conn
	set  []time.Time
	fail bool
}

func (c *deadlineConn) SetWriteDeadline(t time.Time) error {
	c.set = append(c.set, t)
	return nil
}

func (c *deadlineConn) Write(p []byte) (int, error) {
	if c.fail {
		return 0, os.ErrDeadlineExceeded
	}
	return len(p), nil
}

// TestChunkedWritesMoveTheDeadlineRarely checks the write deadline of a
// taken-over watch connection: set once for a run of quick writes, at
// least the timeout ahead of each write and at most an eighth more, moved
// on once less than the timeout is left, and a write that fails on it
// reported as timed out.
func TestChunkedWritesMoveTheDeadlineRarely(t *testing.T) {
	const timeout = 400 * time.Millisecond
	conn := &deadlineConn{}
	c := &chunkedConn{conn: conn}
	write := func() (bool, error) {
		return c.within(timeout, func() error { return c.write(net.Buffers{[]byte("event\n")}, 6) })
	}
	for range 100 {
		before := time.Now()
		if timedOut, err := write(); timedOut || err != nil {
			t.Fatalf("write: timed out %v, %v", timedOut, err)
		}
		last := conn.set[len(conn.set)-1]
		if ahead := last.Sub(before); ahead < timeout || ahead > timeout+timeout/8+50*time.Millisecond {
			t.Fatalf("deadline %v ahead of a write, want %v to %v", ahead, timeout, timeout+timeout/8)
		}
	}
	if len(conn.set) > 2 {
		t.Errorf("100 quick writes set the deadline %d times, want once (twice if the machine stalled)", len(conn.set))
	}

	time.Sleep(timeout / 4)
	n := len(conn.set)
	before := time.Now()
	if _, err := write(); err != nil {
		t.Fatal(err)
	}
	if len(conn.set) != n+1 || conn.set[n].Sub(before) < timeout {
		t.Errorf("after a quarter of the timeout, a write left the deadline at %v, want it moved to at least %v ahead", conn.set[len(conn.set)-1].Sub(before), timeout)
	}

	conn.fail = true
	timedOut, err := write()
	if !timedOut || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a write that hit the deadline: timed out %v, %v", timedOut, err)
	}
	if timedOut, err := c.within(0, func() error { return nil }); timedOut || err != nil || len(conn.set) != n+1 {
		t.Errorf("without a timeout: timed out %v, %v, deadlines set %d, want none more", timedOut, err, len(conn.set)-n-1)
	}
}
