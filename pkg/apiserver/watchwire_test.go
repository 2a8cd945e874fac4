package apiserver

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/miniapi/miniapi/pkg/storage"
)

// openWatch starts a watch of the default namespace's pods at the current
// revision and returns its body.
func openWatch(t *testing.T, ts *testServer, accept string) io.ReadCloser {
	t.Helper()
	req, _ := http.NewRequest("GET", ts.url+"/api/v1/namespaces/default/pods?watch=true&resourceVersion="+formatRV(ts.api.store.Revision()), nil)
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp.Body
}

// readN reads n bytes from r or fails after a few seconds.
func readN(t *testing.T, r io.Reader, n int) []byte {
	t.Helper()
	got := make(chan []byte, 1)
	go func() {
		b := make([]byte, n)
		k, _ := io.ReadFull(r, b)
		got <- b[:k]
	}()
	select {
	case b := <-got:
		return b
	case <-time.After(5 * time.Second):
		t.Fatalf("watch sent fewer than %d bytes", n)
		return nil
	}
}

// TestWatchersShareWireBytes: watchers of the same view get the same bytes
// (encoded once, shared through the wireCache), and a JSON event's object
// is byte for byte what a GET answers right after the write.
func TestWatchersShareWireBytes(t *testing.T) {
	ts := startTestServer(t)
	pods := "/api/v1/namespaces/default/pods"
	json1, json2 := openWatch(t, ts, "application/json"), openWatch(t, ts, "application/json")
	// No wait needed before writing: openWatch returns once the headers came,
	// which the server sends after its store watch is registered, and the
	// watch starts at a resourceVersion, so nothing later can be missed.
	pb1, pb2 := openWatch(t, ts, mediaProtobuf), openWatch(t, ts, mediaProtobuf)

	var want bytes.Buffer
	for i, step := range []struct{ method, path, ctype, body, typ string }{
		{"POST", pods, "application/json", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`, "ADDED"},
		{"PATCH", pods + "/a", "application/merge-patch+json", `{"metadata":{"labels":{"x":"y"}}}`, "MODIFIED"},
	} {
		code, _, body := ts.do(t, step.method, step.path, step.ctype, step.body)
		if code >= 300 {
			t.Fatalf("step %d: %d %s", i, code, body)
		}
		_, _, got := ts.do(t, "GET", pods+"/a", "", "")
		fmt.Fprintf(&want, `{"type":%q,"object":%s}`+"\n", step.typ, strings.TrimSuffix(got, "\n"))
	}
	a := readN(t, json1, want.Len())
	if !bytes.Equal(a, want.Bytes()) {
		t.Errorf("watch sent\n%s\nwant\n%s", a, want.Bytes())
	}
	if b := readN(t, json2, want.Len()); !bytes.Equal(a, b) {
		t.Errorf("second JSON watcher got\n%s\nfirst got\n%s", b, a)
	}

	// Protobuf: two length-prefixed frames, the same for both watchers.
	frames := func(r io.Reader) []byte {
		br := bufio.NewReader(r)
		var all []byte
		for range 2 {
			head := readN(t, br, 4)
			n := int(head[0])<<24 | int(head[1])<<16 | int(head[2])<<8 | int(head[3])
			all = append(append(all, head...), readN(t, br, n)...)
		}
		return all
	}
	p1, p2 := frames(pb1), frames(pb2)
	if !bytes.Equal(p1, p2) || !bytes.Contains(p1, []byte("MODIFIED")) {
		t.Errorf("protobuf watchers differ or lack MODIFIED:\n%q\n%q", p1, p2)
	}
}

// TestWireCacheKey: an entry is reused only for the same revision, key,
// type, kind and format.
func TestWireCacheKey(t *testing.T) {
	var c wireCache
	pods, _ := builtinRegistry(t).Lookup(schema.GroupVersionResource{Version: "v1", Resource: "pods"})
	gvk := pods.GroupVersionKind()
	kv := storage.KV{Key: "k", Value: []byte(`{}`), ModRevision: 7}
	calls := 0
	enc := func() ([]byte, error) { calls++; return fmt.Appendf(nil, "e%d", calls), nil }
	first, _ := c.get("ADDED", gvk, false, kv, enc)
	again, _ := c.get("ADDED", gvk, false, kv, enc)
	if calls != 1 || !bytes.Equal(first, again) {
		t.Fatalf("same event encoded %d times (%q, %q)", calls, first, again)
	}
	other := kv
	other.ModRevision += wireCacheSlots // same slot, another revision
	for _, miss := range []func() ([]byte, error){
		func() ([]byte, error) { return c.get("MODIFIED", gvk, false, kv, enc) },
		func() ([]byte, error) { return c.get("MODIFIED", gvk, true, kv, enc) },
		func() ([]byte, error) { return c.get("MODIFIED", gvk, true, other, enc) },
	} {
		before := calls
		if _, err := miss(); err != nil || calls != before+1 {
			t.Errorf("a different event was served from the cache")
		}
	}
}

// discardFlusher is a ResponseWriter that drops the body and can flush.
type discardFlusher struct{ h http.Header }

func (d *discardFlusher) Header() http.Header         { return d.h }
func (d *discardFlusher) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardFlusher) WriteHeader(int)             {}
func (d *discardFlusher) Flush()                      {}

// BenchmarkWatchFanOut is the server's cost of sending one pod event to
// 100 watchers: "shared" encodes the JSON line once (the wireCache),
// "per-watcher" encodes it for each watcher, as before the cache.
// Compare the two ns/op with each other.
func BenchmarkWatchFanOut(b *testing.B) {
	pods, _ := builtinRegistry(b).Lookup(schema.GroupVersionResource{Version: "v1", Resource: "pods"})
	value := []byte(`{"metadata":{"name":"web-0","namespace":"default","uid":"0b0e5c4e-8a7b-4c1e-9d1f-2f2d4f3a1b2c","creationTimestamp":"2026-11-29T21:00:00Z","labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx","resources":{}}],"restartPolicy":"Always","dnsPolicy":"ClusterFirst"},"status":{"phase":"Pending"}}`)
	for _, c := range []struct {
		name  string
		cache bool
	}{{"shared", true}, {"per-watcher", false}} {
		b.Run(c.name, func(b *testing.B) {
			s := &Server{}
			var cache *wireCache
			if c.cache {
				cache = new(wireCache)
			}
			wws := make([]*watchWriter, 100)
			for i := range wws {
				wws[i] = s.newWatchWriter(&discardFlusher{h: http.Header{}}, httptest.NewRequest("GET", "/", nil), output{format: formatJSON, view: viewObject}, request{res: pods}, watchParams{sel: selector{labels: labels.Everything(), fields: fields.Everything()}})
				wws[i].cache = cache
			}
			rev := int64(1)
			for b.Loop() {
				rev++
				ev := storage.Event{Type: storage.Put, KV: storage.KV{Key: "/pods/default/web-0", Value: value, CreateRevision: 1, ModRevision: rev}}
				for _, ww := range wws {
					if err := ww.event(ev); err != nil {
						b.Fatal(err)
					}
					if err := ww.flush(); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// TestWatchBurstIsOneChunkInOneWrite: over HTTP/1.1 a burst of events
// (here the initial state of 20 pods, about 20 KiB) leaves as one chunk in
// one writev, and the stream ends with the last chunk as a clean end of
// body. The connection below counts the plain writes it is given: the
// headers' and the last chunk's; a writev reaches the TCP connection
// without passing through them. Through net/http the burst would take
// three writes.
func TestWatchBurstIsOneChunkInOneWrite(t *testing.T) {
	var writes atomic.Int64
	ts := startTestServerOn(t, Config{}, nil, func(l net.Listener) net.Listener { return writeCountingListener{l, &writes} })
	createWebPods(t, ts, 20)
	writes.Store(0)
	readWatchToEnd(t, &http.Client{Transport: &http.Transport{}}, ts.url, 20)
	if n := writes.Load(); n != 2 {
		t.Errorf("the connection was given %d plain writes, want 2 (the headers, the last chunk)", n)
	}
}

// TestWatchOverTLSWithHTTP11: a watch over TLS to a client that speaks
// only HTTP/1.1 (as the Python client does) is taken over as well, and
// its events and end arrive the same.
func TestWatchOverTLSWithHTTP11(t *testing.T) {
	ts := startTestServer(t)
	createWebPods(t, ts, 20)
	hs := httptest.NewTLSServer(ts.api)
	t.Cleanup(hs.Close)
	readWatchToEnd(t, hs.Client(), hs.URL, 20)
}

// createWebPods creates n pods in the default namespace.
func createWebPods(t *testing.T, ts *testServer, n int) {
	t.Helper()
	for i := range n {
		body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p%d","labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`, i)
		if code, _, got := ts.do(t, "POST", "/api/v1/namespaces/default/pods", "application/json", body); code != http.StatusCreated {
			t.Fatalf("create: %d %s", code, got)
		}
	}
}

// readWatchToEnd watches the default namespace's pods at base over
// HTTP/1.1 for a second and checks that the stream held the n pods'
// initial state, came chunked, said Connection: close and ended cleanly.
func readWatchToEnd(t *testing.T, client *http.Client, base string, n int) {
	t.Helper()
	resp, err := client.Get(base + "/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the watch to its end: %v (want the last chunk, a clean end of body)", err)
	}
	if got := bytes.Count(body, []byte(`{"type":"ADDED"`)); got != n || len(body) < 8<<10 {
		t.Fatalf("watch sent %d ADDED events in %d bytes, want %d in more than 8 KiB", got, len(body), n)
	}
	if resp.Proto != "HTTP/1.1" || !slices.Equal(resp.TransferEncoding, []string{"chunked"}) || !resp.Close {
		t.Errorf("%s, Transfer-Encoding %v, Connection: close %v; want HTTP/1.1 chunked, closed at the end", resp.Proto, resp.TransferEncoding, resp.Close)
	}
}

// writeCountingListener counts the plain writes (Write calls) on every
// connection it accepts. Its connections are still *net.TCPConn to
// net.Buffers, which writes them with writev.
type writeCountingListener struct {
	net.Listener
	writes *atomic.Int64
}

func (l writeCountingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return writeCountingConn{c.(*net.TCPConn), l.writes}, nil
}

type writeCountingConn struct {
	*net.TCPConn
	writes *atomic.Int64
}

func (c writeCountingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.TCPConn.Write(p)
}

// TestWatchEndsWhenClientLeaves: a client that closes its watch ends it on
// the server at once, though no event comes to fail a write: the
// connection taken over from net/http is read for that.
func TestWatchEndsWhenClientLeaves(t *testing.T) {
	ts := startTestServer(t)
	ends := make(chan watchEnd, 1)
	ts.api.onWatchEnd = func(e watchEnd) { ends <- e }
	resp, err := (&http.Client{Transport: &http.Transport{}}).Get(ts.url + "/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + formatRV(ts.api.store.Revision()))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	select {
	case e := <-ends:
		if e.reason != endDone {
			t.Errorf("the watch ended with %q, want %q", e.reason, endDone)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watch the client left is still open after 10s")
	}
}
