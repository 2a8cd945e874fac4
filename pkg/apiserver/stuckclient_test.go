//go:build unix

package apiserver

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// smallBuffers makes every accepted connection's kernel send buffer
// small, so that a client that stops reading blocks the server's writes
// after a few KiB instead of after the megabytes loopback autotuning
// allows.
func smallBuffers(l net.Listener) net.Listener { return smallBufListener{l} }

type smallBufListener struct{ net.Listener }

func (l smallBufListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4 << 10)
	}
	return c, err
}

// dialStuck opens a connection with a small receive buffer and sends a GET
// of path on it; the caller then reads (or, to be a stuck client, does
// not).
func dialStuck(t testing.TB, base, path string) net.Conn {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4<<10)
		})
		if err != nil {
			return err
		}
		return serr
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, u.Host); err != nil {
		t.Fatal(err)
	}
	return c
}

// createConfigMaps creates n ConfigMaps cm-0000… in default, each with
// size bytes of data, from a few goroutines so that commits batch.
func createConfigMaps(t testing.TB, ts *testServer, n, size int) {
	t.Helper()
	data := strings.Repeat("x", size)
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < n; i += 8 {
				body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-%04d"},"data":{"d":%q}}`, i, data)
				if code, _, out := ts.do(t, "POST", "/api/v1/namespaces/default/configmaps", "application/json", body); code != 201 {
					errs <- out
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// syncBuffer is a log destination tests read while the server writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitOpenWatches waits until apiserver_watches_open is n.
func waitOpenWatches(t testing.TB, ts *testServer, n float64) {
	t.Helper()
	for start := time.Now(); metricValue(ts.api.metrics.watches) != n; time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 30*time.Second {
			t.Fatalf("apiserver_watches_open is %v, want %v", metricValue(ts.api.metrics.watches), n)
		}
	}
}

// metricValue is a gauge's or a counter's value.
func metricValue(c prometheus.Metric) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		return -1
	}
	if m.Gauge != nil {
		return m.Gauge.GetValue()
	}
	return m.Counter.GetValue()
}
