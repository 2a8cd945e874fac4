package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// tableJSON is a one-row deployment Table as miniapi sends it.
func tableJSON(t *testing.T, listRV, rowRV, ready string, withColumns bool) []byte {
	t.Helper()
	tb := map[string]any{
		"kind": "Table", "apiVersion": "meta.k8s.io/v1",
		"metadata": map[string]any{"resourceVersion": listRV},
		"rows": []any{map[string]any{
			"cells": []any{"web", ready, 3, "5s"},
			"object": map[string]any{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
				"metadata": map[string]any{"name": "web", "namespace": "default", "resourceVersion": rowRV}},
		}},
	}
	if withColumns {
		tb["columnDefinitions"] = []any{
			map[string]any{"name": "Name", "type": "string", "format": "name"},
			map[string]any{"name": "Ready", "type": "string"},
			map[string]any{"name": "Up-to-date", "type": "integer"},
			map[string]any{"name": "Age", "type": "string"},
		}
	}
	b, err := json.Marshal(tb)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWatchReconnectsAndRelists: when the stream ends the watch resumes
// from the last resourceVersion seen; when that is expired (410) it lists
// again and watches from the new list; Ctrl-C (context cancel) ends it
// with status 1 and nothing on stderr.
func TestWatchReconnectsAndRelists(t *testing.T) {
	var mu sync.Mutex
	var watchRVs []string
	lists := 0
	third := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Accept"); got != acceptTable {
			t.Errorf("Accept %q", got)
		}
		q := r.URL.Query()
		mu.Lock()
		defer mu.Unlock()
		if q.Get("watch") != "true" {
			lists++
			rv := map[int]string{1: "10", 2: "20"}[lists]
			w.Write(tableJSON(t, rv, rv, "0/3", true))
			return
		}
		watchRVs = append(watchRVs, q.Get("resourceVersion"))
		enc := json.NewEncoder(w)
		switch len(watchRVs) {
		case 1: // one event, then the stream ends (a server restart)
			enc.Encode(map[string]any{"type": "MODIFIED", "object": json.RawMessage(tableJSON(t, "", "11", "1/3", true))})
		case 2: // history gone
			enc.Encode(map[string]any{"type": "ERROR", "object": metav1.Status{Status: "Failure", Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version"}})
		case 3:
			enc.Encode(map[string]any{"type": "MODIFIED", "object": json.RawMessage(tableJSON(t, "", "21", "3/3", false))})
			w.(http.Flusher).Flush()
			close(third)
			mu.Unlock()
			<-r.Context().Done()
			mu.Lock()
		}
	}))
	defer srv.Close()

	t.Setenv("KUBECONFIG", "")
	t.Setenv("HOME", t.TempDir())
	f := NewFactory()
	f.Overrides.ClusterInfo.Server = srv.URL
	var out, errOut lockedBuffer
	o := &getOptions{Watch: true, human: true, ChunkSize: 500, namespace: "default", streams: genericiooptions.IOStreams{Out: &out, ErrOut: &errOut}}
	ref := ResourceRef{Mapping: &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
		GroupVersionKind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		Scope:            meta.RESTScopeNamespace,
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- o.watch(ctx, f, []ResourceRef{ref}) }()
	select {
	case <-third:
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(out.String(), "3/3") && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	case err := <-done:
		t.Fatalf("the watch ended early: %v; output:\n%s", err, out.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("the watch did not come back twice; output so far:\n%s", out.String())
	}
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the watch did not end after cancel")
	}
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Code != 1 || errOut.Len() != 0 {
		t.Errorf("ended with %v, stderr %q; want exit status 1 and no message", err, errOut.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(watchRVs, ","); got != "10,11,20" {
		t.Errorf("watched from resourceVersions %s, want 10,11,20", got)
	}
	want := "NAME   READY   UP-TO-DATE   AGE\n" + rowLine("0/3") + rowLine("1/3") + rowLine("0/3") + rowLine("3/3")
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}

func rowLine(ready string) string {
	return fmt.Sprintf("web    %s     3            5s\n", ready)
}

// lockedBuffer lets the test read what the watch goroutine writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *lockedBuffer) Len() int { return len(b.String()) }
