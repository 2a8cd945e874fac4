package apiserver

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// TestEventsExpireAfterTheirLastWrite: with --event-ttl, an event goes
// once its last write is older than the TTL, and its watchers see it
// DELETED; one written later stays.
func TestEventsExpireAfterTheirLastWrite(t *testing.T) {
	ts := startTestServerWith(t, Config{EventTTL: 300 * time.Millisecond})
	c := ts.client(t)
	ctx := context.Background()
	w, err := c.CoreV1().Events("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// Its lastTimestamp says it was last seen an hour from now: it stays.
	if _, err := c.CoreV1().Events("default").Create(ctx, event("later", metav1.NewTime(time.Now().Add(time.Hour))), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CoreV1().Events("default").Create(ctx, event("now", metav1.Now()), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(20 * time.Second)
	for deleted := false; !deleted; {
		select {
		case ev := <-w.ResultChan():
			deleted = ev.Type == watch.Deleted && ev.Object.(*corev1.Event).Name == "now"
		case <-deadline:
			t.Fatal("the event was not deleted after its TTL")
		}
	}
	if _, err := c.CoreV1().Events("default").Get(ctx, "now", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get of the expired event: %v, want NotFound", err)
	}
	if _, err := c.CoreV1().Events("default").Get(ctx, "later", metav1.GetOptions{}); err != nil {
		t.Errorf("the event written later expired too: %v", err)
	}
}

func event(name string, last metav1.Time) *corev1.Event {
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: name},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web-0"},
		Reason:         "Test", Message: "m", Type: corev1.EventTypeNormal, Count: 1,
		FirstTimestamp: last, LastTimestamp: last,
	}
}

func TestLastWriteIsTheNewestTime(t *testing.T) {
	at := func(s string) string { return fmt.Sprintf("%q", s) }
	for _, c := range []struct {
		json string
		want string
	}{
		{`{"metadata":{"creationTimestamp":` + at("2026-01-01T00:00:00Z") + `},"lastTimestamp":` + at("2026-01-02T00:00:00Z") + `}`, "2026-01-02T00:00:00Z"},
		{`{"metadata":{"creationTimestamp":` + at("2026-01-01T00:00:00Z") + `,"managedFields":[{"time":` + at("2026-01-03T00:00:00Z") + `}]}}`, "2026-01-03T00:00:00Z"},
		{`{"metadata":{},"eventTime":` + at("2026-01-04T00:00:00.000001Z") + `,"series":{"lastObservedTime":` + at("2026-01-05T00:00:00.000000Z") + `}}`, "2026-01-05T00:00:00Z"},
	} {
		got, ok := lastWrite([]byte(c.json))
		if !ok || got.UTC().Format(time.RFC3339) != c.want {
			t.Errorf("lastWrite(%s) = %v, %v; want %s", c.json, got, ok, c.want)
		}
	}
	if _, ok := lastWrite([]byte("not json")); ok {
		t.Error("bytes that are not an event have a last write: they would be deleted")
	}
}
