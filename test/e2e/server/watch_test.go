package server

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// TestWatchResumesFromOlderRevision watches from a resourceVersion taken
// before several writes and gets every change after it, in order.
func TestWatchResumesFromOlderRevision(t *testing.T) {
	s := start(t)
	c := s.Client()
	ctx := ctxFor(t)
	first, err := c.CoreV1().Pods("default").Create(ctx, pod("w", map[string]string{"v": "0"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur := first
	for i := 1; i <= 3; i++ {
		cur.Labels["v"] = fmt.Sprint(i)
		if cur, err = c.CoreV1().Pods("default").Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.CoreV1().Pods("default").Delete(ctx, "w", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	w, err := c.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{ResourceVersion: first.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var got []string
	for len(got) < 4 {
		select {
		case ev := <-w.ResultChan():
			p := ev.Object.(*corev1.Pod)
			got = append(got, fmt.Sprintf("%s:%s", ev.Type, p.Labels["v"]))
		case <-time.After(10 * time.Second):
			t.Fatalf("watch delivered only %v", got)
		}
	}
	if want := "[MODIFIED:1 MODIFIED:2 MODIFIED:3 DELETED:3]"; fmt.Sprint(got) != want {
		t.Errorf("events %v, want %s", got, want)
	}
}

// TestInformerSyncsAndSeesChanges runs a client-go SharedInformer, which
// uses the streaming list (sendInitialEvents) and a protobuf watch.
func TestInformerSyncsAndSeesChanges(t *testing.T) {
	s := start(t)
	c := s.Client()
	ctx := ctxFor(t)
	for _, name := range []string{"a", "b"} {
		if _, err := c.CoreV1().Pods("default").Create(ctx, pod(name, nil), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	events := make(chan string, 100)
	f := informers.NewSharedInformerFactory(c, 0)
	inf := f.Core().V1().Pods().Informer()
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { events <- "add " + o.(*corev1.Pod).Name },
		UpdateFunc: func(_, o any) { events <- "update " + o.(*corev1.Pod).Name },
		DeleteFunc: func(o any) {
			if tomb, ok := o.(cache.DeletedFinalStateUnknown); ok {
				o = tomb.Obj
			}
			events <- "delete " + o.(*corev1.Pod).Name
		},
	})
	stop := make(chan struct{})
	defer close(stop)
	f.Start(stop)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("informer did not sync")
	}
	if n := len(inf.GetStore().List()); n != 2 {
		t.Fatalf("synced %d pods, want 2", n)
	}
	p, err := c.CoreV1().Pods("default").Create(ctx, pod("c", nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Labels = map[string]string{"x": "y"}
	if _, err := c.CoreV1().Pods("default").Update(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.CoreV1().Pods("default").Delete(ctx, "c", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{"add a", "add b", "add c", "update c", "delete c"}
	seen := map[string]bool{}
	deadline := time.After(10 * time.Second)
	for len(seen) < len(want) {
		select {
		case e := <-events:
			seen[e] = true
		case <-deadline:
			t.Fatalf("informer saw %v, want %v", seen, want)
		}
	}
	for _, e := range want {
		if !seen[e] {
			t.Errorf("informer missed %q (saw %v)", e, seen)
		}
	}
}

// TestWatchFromExpiredRevision starts with a short history: a watch from
// before it answers 200 and then one ERROR event holding 410 Expired.
func TestWatchFromExpiredRevision(t *testing.T) {
	s := start(t, "--watch-history=5")
	c := s.Client()
	ctx := ctxFor(t)
	for i := 0; i < 10; i++ {
		if _, err := c.CoreV1().Pods("default").Create(ctx, pod(fmt.Sprintf("p%d", i), nil), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	code, h, body := raw(t, s, "GET", "/api/v1/namespaces/default/pods?watch=true&resourceVersion=1", "", "")
	if code != 200 || h.Get("Content-Type") != "application/json" {
		t.Fatalf("expired watch: %d %s", code, h.Get("Content-Type"))
	}
	prefix := `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (`
	suffix := `)","reason":"Expired","code":410}}` + "\n"
	if !strings.HasPrefix(body, prefix) || !strings.HasSuffix(body, suffix) || strings.Count(body, "\n") != 1 {
		t.Errorf("expired watch body:\n%s", body)
	}

	// client-go sees the same as an error event.
	w, err := c.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{ResourceVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	select {
	case ev := <-w.ResultChan():
		st, ok := ev.Object.(*metav1.Status)
		if ev.Type != watch.Error || !ok || st.Code != 410 || st.Reason != metav1.StatusReasonExpired {
			t.Errorf("client-go event: %s %#v", ev.Type, ev.Object)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
	}
}

// TestStreamingListBookmark checks the WatchList shape kubectl rollout
// status uses: ADDED for the current objects, then a BOOKMARK annotated
// k8s.io/initial-events-end, then changes.
func TestStreamingListBookmark(t *testing.T) {
	s := start(t)
	c := s.Client()
	ctx := ctxFor(t)
	if _, err := c.AppsV1().Deployments("default").Create(ctx, deployment("web", 1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(wctx, "GET", s.URL+deploymentsPath+
		"?allowWatchBookmarks=true&fieldSelector=metadata.name%3Dweb&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&timeoutSeconds=10&watch=true", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	next := func() string {
		if !lines.Scan() {
			t.Fatalf("stream ended: %v", lines.Err())
		}
		return lines.Text()
	}
	if l := next(); !strings.HasPrefix(l, `{"type":"ADDED","object":{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web"`) {
		t.Errorf("first event: %s", l)
	}
	if l := next(); !strings.HasPrefix(l, `{"type":"BOOKMARK","object":{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"resourceVersion":"`) ||
		!strings.Contains(l, `"annotations":{"k8s.io/initial-events-end":"true"}`) {
		t.Errorf("second event: %s", l)
	}
	if _, err := c.AppsV1().Deployments("default").Patch(ctx, "web", "application/merge-patch+json", []byte(`{"metadata":{"labels":{"x":"y"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	for {
		l := next()
		if strings.HasPrefix(l, `{"type":"BOOKMARK"`) {
			continue // periodic bookmarks may come first
		}
		if !strings.HasPrefix(l, `{"type":"MODIFIED"`) || !strings.Contains(l, `"x":"y"`) {
			t.Errorf("change event: %s", l)
		}
		break
	}
}
