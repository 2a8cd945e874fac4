package apiserver

import (
	"bytes"
	"net"
)

// outQueue is a watch's output waiting for its next write. The wire bytes
// of an event that the wireCache shares among watchers are queued by
// reference, since they never change, so fanning an event out to N
// watchers copies it only in the kernel; the watch's own bytes (Tables,
// bookmarks, errors, frames it encodes itself) are copied into own.
type outQueue struct {
	segs net.Buffers // what to write, in order
	own  bytes.Buffer
	// open is where in own the bytes not yet in segs begin.
	open int
	n    int
}

// share queues b itself; b must not change afterwards.
func (q *outQueue) share(b []byte) {
	q.close()
	q.segs = append(q.segs, b)
	q.n += len(b)
}

// Write queues a copy of p.
func (q *outQueue) Write(p []byte) (int, error) {
	q.own.Write(p)
	q.n += len(p)
	return len(p), nil
}

// AvailableBuffer is own's unused capacity, for an append whose result
// is passed straight to Write (as bytes.Buffer's).
func (q *outQueue) AvailableBuffer() []byte { return q.own.AvailableBuffer() }

// close moves the own bytes written since the last share into segs. own
// is only appended to until reset (a grown buffer leaves the old one to
// the slices already in segs), so those slices stay intact.
func (q *outQueue) close() {
	if q.own.Len() > q.open {
		q.segs = append(q.segs, q.own.Bytes()[q.open:])
		q.open = q.own.Len()
	}
}

// Len is the bytes queued.
func (q *outQueue) Len() int { return q.n }

// take returns everything queued, valid until the next reset.
func (q *outQueue) take() net.Buffers {
	q.close()
	return q.segs
}

// reset empties the queue once its bytes are written, letting go of the
// shared ones.
func (q *outQueue) reset() {
	clear(q.segs)
	q.segs = q.segs[:0]
	q.own.Reset()
	q.open, q.n = 0, 0
}
