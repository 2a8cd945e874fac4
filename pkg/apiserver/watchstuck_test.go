//go:build unix

package apiserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// startStuckTestServer is a test server with a short watch write timeout,
// small kernel send buffers, its log in logs and every ended watch sent
// on the returned channel.
func startStuckTestServer(t *testing.T, logs *syncBuffer) (*testServer, chan watchEnd) {
	t.Helper()
	cfg := Config{Limits: Limits{WatchWriteTimeout: 300 * time.Millisecond}}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
	ts := startTestServerOn(t, cfg, nil, smallBuffers)
	ends := make(chan watchEnd, 16)
	ts.api.onWatchEnd = func(e watchEnd) { ends <- e }
	return ts, ends
}

// waitWatchEnd waits for the next ended watch of reason.
func waitWatchEnd(t *testing.T, ends chan watchEnd, reason string) watchEnd {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case e := <-ends:
			if e.reason == reason {
				return e
			}
		case <-timeout:
			t.Fatalf("no watch ended with %q", reason)
		}
	}
}

// TestStuckWatcherIsClosed: a client that never reads a watch of a large
// collection is closed by the server once a write waits longer than the
// write timeout; while stuck it holds about one page of the initial state,
// not the collection; the log and the metrics say so; a reading client of
// the same collection goes on.
func TestStuckWatcherIsClosed(t *testing.T) {
	var logs syncBuffer
	ts, ends := startStuckTestServer(t, &logs)
	const n, size = 500, 5 << 10
	createConfigMaps(t, ts, n, size)

	reader, err := ts.client(t).CoreV1().ConfigMaps("default").Watch(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Stop()
	for range n {
		if ev := <-reader.ResultChan(); ev.Type != watch.Added {
			t.Fatalf("reading watch got %v, want ADDED", ev.Type)
		}
	}

	// The client reads the first MiB, past the first pages, then stops.
	conn := dialStuck(t, ts.url, configMaps+"?watch=true")
	if _, err := io.CopyN(io.Discard, conn, 1<<20); err != nil {
		t.Fatal(err)
	}
	end := waitWatchEnd(t, ends, endWriteTimeout)
	t.Logf("peak held %d", end.peakHeld)
	if end.resource != "configmaps" {
		t.Errorf("ended watch of %q", end.resource)
	}
	// One page (initialPageBytes, or the first page) and the output being written, against
	// the collection's n*size.
	if bound := max(initialPageBytes, initialFirstPage*size) + 2*spillAt + 2*size; end.peakHeld > bound || end.peakHeld > n*size/4 {
		t.Errorf("stuck watcher held %d bytes at most, want <= %d (collection: %d)", end.peakHeld, bound, n*size)
	}
	waitOpenWatches(t, ts, 1)
	if got := metricValue(ts.api.metrics.terminated.WithLabelValues("configmaps")); got != 1 {
		t.Errorf("apiserver_terminated_watchers_total = %v, want 1", got)
	}
	if l := logs.String(); !strings.Contains(l, "does not keep up") || !strings.Contains(l, `reason="write timeout"`) {
		t.Errorf("no log line says why the watch was closed:\n%s", l)
	}

	if code, _, body := ts.do(t, "POST", configMaps, "application/json", `{"metadata":{"name":"after"}}`); code != 201 {
		t.Fatal(body)
	}
	select {
	case ev := <-reader.ResultChan():
		if ev.Type != watch.Added {
			t.Fatalf("reading watch got %v after the stuck one ended, want ADDED", ev.Type)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the reading watch got nothing after the stuck one ended")
	}
}

// TestStuckWatcherResumes: a client whose watch was closed for not reading
// watches again from the last resourceVersion it saw and gets every later
// change, in order.
func TestStuckWatcherResumes(t *testing.T) {
	var logs syncBuffer
	ts, ends := startStuckTestServer(t, &logs)
	createConfigMaps(t, ts, 1, 10)
	update := func(i int) int64 {
		body := fmt.Sprintf(`{"data":{"d":%q}}`, strconv.Itoa(i)+strings.Repeat("y", 8<<10))
		code, _, out := ts.do(t, "PATCH", configMaps+"/cm-0000", "application/merge-patch+json", body)
		if code != 200 {
			t.Fatal(out)
		}
		return objectRV(t, out)
	}

	conn := dialStuck(t, ts.url, configMaps+"?watch=true&resourceVersion="+formatRV(ts.api.store.Revision()))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	first := update(0)
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if seen := eventRV(t, line); seen != first {
		t.Fatalf("first event at %d, want %d", seen, first)
	}
	// The client reads no more; write until the server gives up on it.
	var later []int64
	for stuck := false; !stuck; {
		later = append(later, update(len(later)+1))
		select {
		case <-ends:
			stuck = true
		default:
		}
	}

	resumed, err := http.Get(ts.url + configMaps + "?watch=true&resourceVersion=" + formatRV(first))
	if err != nil {
		t.Fatal(err)
	}
	defer resumed.Body.Close()
	r := bufio.NewReader(resumed.Body)
	for _, want := range later {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("resumed watch: %v before revision %d", err, want)
		}
		if got := eventRV(t, line); got != want {
			t.Fatalf("resumed watch sent revision %d, want %d", got, want)
		}
	}
}

// eventRV is the resourceVersion of one JSON watch line's object.
func eventRV(t *testing.T, line string) int64 {
	t.Helper()
	var ev struct {
		Object struct {
			Metadata struct{ ResourceVersion string }
		}
	}
	if err := json.Unmarshal([]byte(line), &ev); err != nil {
		t.Fatalf("%v: %.200s", err, line)
	}
	rv, err := strconv.ParseInt(ev.Object.Metadata.ResourceVersion, 10, 64)
	if err != nil {
		t.Fatalf("event without resourceVersion: %.200s", line)
	}
	return rv
}

// TestIdleWatchOutlivesWriteTimeout: the write timeout bounds a write, not
// the quiet time between events; a watch idle for several timeouts still
// delivers the next change.
func TestIdleWatchOutlivesWriteTimeout(t *testing.T) {
	var logs syncBuffer
	ts, _ := startStuckTestServer(t, &logs)
	w, err := ts.client(t).CoreV1().ConfigMaps("default").Watch(context.Background(), metav1.ListOptions{ResourceVersion: formatRV(ts.api.store.Revision())})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	waitOpenWatches(t, ts, 1)
	// Idle for three write timeouts: proving that nothing cuts the watch
	// takes elapsed time.
	time.Sleep(3 * ts.api.limits.WatchWriteTimeout)
	createConfigMaps(t, ts, 1, 10)
	select {
	case ev, ok := <-w.ResultChan():
		if !ok || ev.Type != watch.Added {
			t.Fatalf("idle watch got %v (open: %v), want ADDED", ev.Type, ok)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the idle watch got nothing")
	}
}

// TestOverflowedWatcherIsClosed: a watcher that falls more than the store's
// buffer behind is closed after the events it was given, as kube-apiserver
// closes a watcher that does not keep up (no ERROR event); the client
// resumes from the last resourceVersion it read and gets the rest.
func TestOverflowedWatcherIsClosed(t *testing.T) {
	var logs syncBuffer
	cfg := Config{Limits: Limits{WatchWriteTimeout: 10 * time.Minute}}
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	ts := startTestServerOn(t, cfg, nil, smallBuffers)
	ends := make(chan watchEnd, 16)
	ts.api.onWatchEnd = func(e watchEnd) { ends <- e }
	const writers = 8
	createConfigMaps(t, ts, writers, 10)

	conn := dialStuck(t, ts.url, configMaps+"?watch=true&resourceVersion="+formatRV(ts.api.store.Revision()))
	// More changes than the store buffers for one watcher (1,024), while
	// the client reads nothing; from a few writers, so that commits batch.
	var mu sync.Mutex
	var revs []int64
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range 1500 / writers {
				body := fmt.Sprintf(`{"data":{"d":%q}}`, strconv.Itoa(i)+strings.Repeat("y", 1<<10))
				code, _, out := ts.do(t, "PATCH", fmt.Sprintf("%s/cm-%04d", configMaps, w), "application/merge-patch+json", body)
				if code != 200 {
					t.Error(out)
					return
				}
				mu.Lock()
				revs = append(revs, objectRV(t, out))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	slices.Sort(revs)

	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(resp.Body)
	var last int64
	for i := 0; ; i++ {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if last = eventRV(t, line); last != revs[i] {
			t.Fatalf("event %d at revision %d, want %d", i, last, revs[i])
		}
	}
	if last == 0 || last == revs[len(revs)-1] {
		t.Fatalf("the stream ended at revision %d, want before the last change %d", last, revs[len(revs)-1])
	}
	if end := waitWatchEnd(t, ends, endBufferFull); end.resource != "configmaps" {
		t.Errorf("ended watch of %q", end.resource)
	}
	if got := metricValue(ts.api.metrics.terminated.WithLabelValues("configmaps")); got != 1 {
		t.Errorf("apiserver_terminated_watchers_total = %v, want 1", got)
	}
	if l := logs.String(); !strings.Contains(l, `reason="buffer full"`) {
		t.Errorf("no log line says why the watch was closed:\n%s", l)
	}

	resumed, err := http.Get(ts.url + configMaps + "?watch=true&resourceVersion=" + formatRV(last))
	if err != nil {
		t.Fatal(err)
	}
	defer resumed.Body.Close()
	rr := bufio.NewReader(resumed.Body)
	for _, want := range revs[slices.Index(revs, last)+1:] {
		line, err := rr.ReadString('\n')
		if err != nil {
			t.Fatalf("resumed watch: %v before revision %d", err, want)
		}
		if got := eventRV(t, line); got != want {
			t.Fatalf("resumed watch sent revision %d, want %d", got, want)
		}
	}
}

// objectRV is the resourceVersion of a JSON object.
func objectRV(t *testing.T, body string) int64 {
	t.Helper()
	return eventRV(t, `{"object":`+body+`}`)
}

// startHTTP2 serves ts's handler again over TLS with HTTP/2, as miniapi
// serves with --tls-cert-file, and returns its URL and client.
func startHTTP2(t *testing.T, ts *testServer) (string, *http.Client) {
	t.Helper()
	hs := httptest.NewUnstartedServer(ts.api)
	hs.EnableHTTP2 = true
	hs.StartTLS()
	t.Cleanup(hs.Close)
	return hs.URL, hs.Client()
}

// TestWriteTimeoutOverHTTP2: over HTTP/2 (where a passed write deadline
// resets the stream even with no write pending) an idle watch outlives
// several write timeouts, and a client that stops reading is closed.
func TestWriteTimeoutOverHTTP2(t *testing.T) {
	var logs syncBuffer
	ts, ends := startStuckTestServer(t, &logs)
	url, client := startHTTP2(t, ts)

	idle, err := client.Get(url + configMaps + "?watch=true&resourceVersion=" + formatRV(ts.api.store.Revision()))
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Body.Close()
	if idle.ProtoMajor != 2 {
		t.Fatalf("served over %s, want HTTP/2", idle.Proto)
	}
	waitOpenWatches(t, ts, 1)
	// Idle for three write timeouts: proving that nothing cuts the watch
	// takes elapsed time.
	time.Sleep(3 * ts.api.limits.WatchWriteTimeout)
	const n, size = 300, 32 << 10
	createConfigMaps(t, ts, n, size)
	line, err := bufio.NewReader(idle.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, `{"type":"ADDED"`) {
		t.Fatalf("idle HTTP/2 watch: %v, %.100q", err, line)
	}

	// The client's flow-control window (4 MiB in Go) fills, then the
	// server's writes block.
	stuck, err := client.Get(url + configMaps + "?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer stuck.Body.Close()
	waitWatchEnd(t, ends, endWriteTimeout)
	if got := metricValue(ts.api.metrics.terminated.WithLabelValues("configmaps")); got != 1 {
		t.Errorf("apiserver_terminated_watchers_total = %v, want 1", got)
	}
}
