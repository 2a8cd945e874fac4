package apiserver

import (
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// chunkedConn is an HTTP/1.1 watch's connection, taken over from net/http
// once the headers are out, so that each flush of the stream is one chunk
// in one socket write. net/http writes a chunk larger than its 4 KiB
// buffer in three writes (the buffer's worth with the chunk's header, the
// rest, then the chunk's end at the flush), and a burst of events is such
// a chunk; each write wakes the reader. The body is the same chunked body
// kube-apiserver sends.
type chunkedConn struct {
	conn net.Conn
	hdr  []byte
	iov  net.Buffers
	// readDone is closed when the reader of the client's side has ended.
	readDone chan struct{}
	// mu orders the write deadline that the watch's context sets when it
	// ends (cut) before end's own; ended: end has begun.
	mu         sync.Mutex
	cut, ended bool
	// deadline is the write deadline the stream's writes last set; see
	// within.
	deadline time.Time
}

// takeChunked takes over the connection of a chunkable watch whose
// headers are sent; nil when it stays net/http's. clientGone is called
// when the client closes its side, as net/http would cancel the request's
// context. Once ctx ends, a write that is still blocked fails at once, as
// it would when net/http closes the connection at shutdown.
func takeChunked(ctx context.Context, rc *http.ResponseController, r *http.Request, clientGone func()) *chunkedConn {
	if !chunkable(r) {
		return nil
	}
	conn, brw, err := rc.Hijack()
	if err != nil {
		return nil
	}
	c := &chunkedConn{conn: conn, readDone: make(chan struct{})}
	go func() {
		defer close(c.readDone)
		// An HTTP/1.1 client sends nothing more while a response streams:
		// the read ends when it, or end, closes the connection.
		_, _ = io.Copy(io.Discard, brw.Reader)
		clientGone()
	}()
	context.AfterFunc(ctx, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if !c.ended {
			c.cut = true
			_ = conn.SetWriteDeadline(time.Now())
		}
	})
	return c
}

// wasCut says whether the watch's end has cut its writes short: their
// errors are not the client's doing.
func (c *chunkedConn) wasCut() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cut
}

// chunkable says whether r's response can be taken over as a chunked
// stream: HTTP/1.1 (an HTTP/2 stream cannot be taken over, HTTP/1.0 has no
// chunks).
func chunkable(r *http.Request) bool { return r.ProtoMajor == 1 && r.ProtoMinor == 1 }

// write sends the n bytes of segs as one chunk, in one write (writev) on a
// TCP connection.
func (c *chunkedConn) write(segs net.Buffers, n int) error {
	c.hdr = append(strconv.AppendInt(c.hdr[:0], int64(n), 16), "\r\n"...)
	c.iov = append(append(append(c.iov[:0], c.hdr), segs...), crlf)
	bufs := c.iov // WriteTo consumes its slice
	_, err := bufs.WriteTo(c.conn)
	return err
}

var crlf = []byte("\r\n")

// within runs one write of the stream, which must end within timeout
// (none when 0), and reports whether it failed for taking longer. A
// connection's deadline bounds only the writes made while it is ahead, so
// unlike writeWithin it is not cleared between writes: it is moved on
// only when less than timeout is left, to timeout and an eighth. Each
// write may then take timeout, and at most an eighth more, and a busy
// stream sets a deadline once per eighth of timeout instead of twice per
// write (a tenth of the delivery's CPU at 1,000 watchers).
func (c *chunkedConn) within(timeout time.Duration, write func() error) (timedOut bool, err error) {
	if timeout <= 0 {
		return false, write()
	}
	if now := time.Now(); c.deadline.Sub(now) < timeout {
		c.deadline = now.Add(timeout + timeout/8)
		if err := c.conn.SetWriteDeadline(c.deadline); err != nil {
			return false, write()
		}
	}
	if err := write(); err != nil {
		return timedOutBy(err, c.deadline), err
	}
	return false, nil
}

// end sends the last chunk (within timeout, or a second when 0), closes
// the connection and waits for its reader.
func (c *chunkedConn) end(timeout time.Duration) {
	if timeout <= 0 {
		timeout = time.Second
	}
	c.mu.Lock()
	c.ended = true
	_ = c.conn.SetWriteDeadline(time.Now().Add(timeout))
	c.mu.Unlock()
	_, _ = io.WriteString(c.conn, "0\r\n\r\n")
	_ = c.conn.Close()
	<-c.readDone
}
