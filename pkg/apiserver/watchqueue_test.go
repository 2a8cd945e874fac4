package apiserver

import (
	"bytes"
	"strings"
	"testing"
)

// TestOutQueueKeepsOrderAndSharesWithoutCopying queues shared and own
// bytes in turn, with own growing past its first buffer in between: the
// queue gives them back in order, the shared ones as the very slices
// given, and holds none of them after reset.
func TestOutQueueKeepsOrderAndSharesWithoutCopying(t *testing.T) {
	var q outQueue
	var want bytes.Buffer
	shared := [][]byte{[]byte("shared-1\n"), []byte("shared-2\n"), []byte("shared-3\n")}
	for i, s := range shared {
		own := strings.Repeat(string(rune('a'+i)), 100<<i) + "\n"
		q.Write([]byte(own[:10]))
		q.Write([]byte(own[10:]))
		want.WriteString(own)
		q.share(s)
		want.Write(s)
	}
	q.Write([]byte("last\n"))
	want.WriteString("last\n")

	segs := q.take()
	if got := bytes.Join(segs, nil); !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("queued %q, want %q", got, want.Bytes())
	}
	if q.Len() != want.Len() {
		t.Errorf("Len %d, want %d", q.Len(), want.Len())
	}
	for _, s := range shared {
		found := false
		for _, seg := range segs {
			found = found || len(seg) == len(s) && &seg[0] == &s[0]
		}
		if !found {
			t.Errorf("%q was copied, not queued by reference", s)
		}
	}
	q.reset()
	if q.Len() != 0 || len(q.take()) != 0 || q.segs[:cap(q.segs)][0] != nil {
		t.Errorf("after reset: %d bytes, %d segments, first slot %q", q.Len(), len(q.take()), q.segs[:cap(q.segs)][0])
	}
}
