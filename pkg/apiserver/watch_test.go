package apiserver

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestWatchSelectorTransitions: with a label selector, an object that
// starts matching is ADDED and one that stops matching is DELETED.
func TestWatchSelectorTransitions(t *testing.T) {
	ts := startTestServer(t)
	pods := "/api/v1/namespaces/default/pods"
	podJSON := func(name, tier string) string {
		return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `","labels":{"tier":"` + tier + `"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`
	}
	if code, _, body := ts.do(t, "POST", pods, "application/json", podJSON("a", "back")); code != 201 {
		t.Fatal(body)
	}
	resp, err := http.Get(ts.url + pods + "?watch=true&labelSelector=tier%3Dfront&resourceVersion=" + formatRV(ts.api.store.Revision()))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	patch := func(name, tier string) {
		if code, _, body := ts.do(t, "PATCH", pods+"/"+name, "application/merge-patch+json", `{"metadata":{"labels":{"tier":"`+tier+`"}}}`); code != 200 {
			t.Fatal(body)
		}
	}
	patch("a", "front")
	patch("a", "front2")
	if code, _, body := ts.do(t, "POST", pods, "application/json", podJSON("b", "front")); code != 201 {
		t.Fatal(body)
	}
	if code, _, body := ts.do(t, "DELETE", pods+"/b", "", ""); code != 200 {
		t.Fatal(body)
	}
	want := []string{`ADDED a front`, `DELETED a front2`, `ADDED b front`, `DELETED b front`}
	for _, w := range want {
		f := strings.Fields(w)
		select {
		case l := <-lines:
			if !strings.HasPrefix(l, `{"type":"`+f[0]+`"`) || !strings.Contains(l, `"name":"`+f[1]+`"`) || !strings.Contains(l, `"tier":"`+f[2]+`"`) {
				t.Errorf("event %q, want %s", l, w)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no event, want %s", w)
		}
	}
}
