//go:build unix

package server

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A watch whose client never reads, on a collection larger than the
// socket buffers, is closed by the real binary once a write waits longer
// than --watch-write-timeout; the metrics say so.
func TestStuckWatcherIsClosedByWriteTimeout(t *testing.T) {
	s := start(t, "--watch-write-timeout=500ms")
	data := strings.Repeat("x", 16<<10)
	for i := range 500 {
		body := fmt.Sprintf(`{"metadata":{"name":"cm-%04d"},"data":{"d":%q}}`, i, data)
		if code, _, out := raw(t, s, "POST", "/api/v1/namespaces/default/configmaps", "application/json", body); code != 201 {
			t.Fatal(out)
		}
	}

	// A small receive buffer, and no reads: the server's writes block.
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) {
			_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4<<10)
		})
	}}
	conn, err := d.DialContext(ctxFor(t), "tcp", s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /api/v1/namespaces/default/configmaps?watch=true HTTP/1.1\r\nHost: %s\r\n\r\n", s.Addr)

	want := `apiserver_terminated_watchers_total{resource="configmaps"} 1`
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		m := metrics(t, s.URL)
		if strings.Contains(m, want) && strings.Contains(m, "\napiserver_watches_open 0\n") {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the stuck watch was not closed; metrics:\n%s", grepLines(m, "watch"))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func metrics(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func grepLines(s, word string) string {
	var out []string
	for l := range strings.SplitSeq(s, "\n") {
		if strings.Contains(l, word) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
