//go:build unix

package apiserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestInitialStatePagesAreOneRevision: the initial state of a watch is read
// page by page while the client reads, and changes made meanwhile do not
// show in the later pages: every object is ADDED as it was when the watch
// began, and the changes follow as events.
func TestInitialStatePagesAreOneRevision(t *testing.T) {
	cfg := Config{Limits: Limits{WatchWriteTimeout: 10 * time.Minute}}
	ts := startTestServerOn(t, cfg, nil, smallBuffers)
	const n, size = 100, 32 << 10 // pages of about 8 objects
	createConfigMaps(t, ts, n, size)
	began := ts.api.store.Revision()

	conn := dialStuck(t, ts.url, configMaps+"?watch=true")
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	body := bufio.NewReader(resp.Body)
	first := readEvent(t, body)
	// The server is blocked on the first pages now; change objects of the
	// last ones.
	patched := fmt.Sprintf("cm-%04d", n-20)
	if code, _, out := ts.do(t, "PATCH", configMaps+"/"+patched, "application/merge-patch+json", `{"data":{"d":"new"}}`); code != 200 {
		t.Fatal(out)
	}
	deleted := fmt.Sprintf("cm-%04d", n-10)
	if code, _, out := ts.do(t, "DELETE", configMaps+"/"+deleted, "", ""); code != 200 {
		t.Fatal(out)
	}
	if code, _, out := ts.do(t, "POST", configMaps, "application/json", `{"metadata":{"name":"cm-0100"}}`); code != 201 {
		t.Fatal(out)
	}

	added := map[string]bool{first.name: true}
	for range n - 1 {
		ev := readEvent(t, body)
		if ev.typ != "ADDED" || ev.rv > began || added[ev.name] {
			t.Fatalf("initial event %s %s at %d, want each object ADDED once at or before %d", ev.typ, ev.name, ev.rv, began)
		}
		added[ev.name] = true
	}
	if !added[patched] || !added[deleted] {
		t.Errorf("initial state misses %s or %s", patched, deleted)
	}
	for _, want := range []string{"MODIFIED " + patched, "DELETED " + deleted, "ADDED cm-0100"} {
		if ev := readEvent(t, body); ev.typ+" "+ev.name != want || ev.rv <= began {
			t.Fatalf("event %s %s at %d, want %s after %d", ev.typ, ev.name, ev.rv, want, began)
		}
	}
}

type lineEvent struct {
	typ, name string
	rv        int64
}

// readEvent reads one JSON watch line.
func readEvent(t *testing.T, r *bufio.Reader) lineEvent {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var ev struct {
		Type   string
		Object struct {
			Metadata struct{ Name string }
		}
	}
	if err := json.Unmarshal([]byte(line), &ev); err != nil {
		t.Fatalf("%v: %.200s", err, line)
	}
	return lineEvent{typ: ev.Type, name: ev.Object.Metadata.Name, rv: eventRV(t, line)}
}

// TestInitialStateExpired: when the history moves past the initial state's
// revision before a slow client has read every page, the watch ends with
// an ERROR event 410 Expired, as a watch from a too old revision does.
func TestInitialStateExpired(t *testing.T) {
	cfg := Config{Limits: Limits{WatchWriteTimeout: 10 * time.Minute}}
	ts := startTestServerOn(t, cfg, nil, smallBuffers)
	const n, size = 100, 32 << 10
	createConfigMaps(t, ts, n, size)

	conn := dialStuck(t, ts.url, configMaps+"?watch=true")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body := bufio.NewReader(resp.Body)
	readEvent(t, body)
	// More writes elsewhere than the test store's history keeps (1,000).
	const writers = 8
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			path := "/api/v1/namespaces/kube-system/configmaps"
			name := fmt.Sprintf("churn-%d", w)
			if code, _, out := ts.do(t, "POST", path, "application/json", `{"metadata":{"name":"`+name+`"}}`); code != 201 {
				t.Error(out)
				return
			}
			for i := range 1100 / writers {
				body := fmt.Sprintf(`{"data":{"i":"%d"}}`, i)
				if code, _, out := ts.do(t, "PATCH", path+"/"+name, "application/merge-patch+json", body); code != 200 {
					t.Error(out)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	for {
		line, err := body.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended without an ERROR event: %v", err)
		}
		if !strings.HasPrefix(line, `{"type":"ERROR"`) {
			continue
		}
		if !strings.Contains(line, `"code":410`) || !strings.Contains(line, `"reason":"Expired"`) {
			t.Fatalf("ERROR event %s, want 410 Expired", line)
		}
		return
	}
}
