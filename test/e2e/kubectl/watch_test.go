package kubectl

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestGetWatch runs `kubectl get -w`, which asks for Tables in the watch
// stream, and checks it prints the header once and a row per change.
func TestGetWatch(t *testing.T) {
	t.Parallel()
	s := start(t)
	expectOut(t, s, "deployment.apps/web created\n", "create", "deployment", "web", "--image=nginx", "--replicas=1")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lines := stream(ctx, t, s, "get", "deploy", "web", "-w")
	if h := next(t, lines, 10*time.Second); strings.Join(cells(h), " | ") != "NAME | READY | UP-TO-DATE | AVAILABLE | AGE" {
		t.Fatalf("header %q", h)
	}
	if first := cells(next(t, lines, 10*time.Second)); first[0] != "web" {
		t.Fatalf("first row %v", first)
	}
	expectOut(t, s, "deployment.apps/web scaled\n", "scale", "deploy", "web", "--replicas=4")
	// Rows follow as the deployment and its controller write; one of them
	// shows the new desired count.
	for {
		row := cells(next(t, lines, 20*time.Second))
		if row[0] == "NAME" {
			t.Fatalf("header printed twice")
		}
		if len(row) == 5 && row[0] == "web" && strings.HasSuffix(row[1], "/4") {
			break
		}
	}
	cancel()

	// A pod being deleted prints as Terminating (the MODIFIED event that
	// sets deletionTimestamp). This needs the controllers and the
	// simulated kubelet.
	waitReady(t, s, "web", 4)
	ctxPods, cancelPods := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancelPods()
	pods := streamWatching(ctxPods, t, s, 20*time.Second, "get", "pods", "--watch-only", "-l", "app=web")
	expectOut(t, s, "deployment.apps/web scaled\n", "scale", "deploy", "web", "--replicas=3")
	if h := next(t, pods, 10*time.Second); strings.Join(cells(h), " | ") != "NAME | READY | STATUS | RESTARTS | AGE" {
		t.Fatalf("pods header %q", h)
	}
	for {
		row := cells(next(t, pods, 20*time.Second))
		if len(row) == 5 && podName.MatchString(row[0]) && row[2] == "Terminating" {
			break
		}
	}
	cancelPods()

	// -o name watches print the name for every event.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel2()
	names := stream(ctx2, t, s, "get", "deploy", "-w", "-o", "name")
	if l := next(t, names, 10*time.Second); l != "deployment.apps/web" {
		t.Fatalf("first name line %q", l)
	}
	ok(t, s, "label", "deploy", "web", "watched=yes")
	if l := next(t, names, 10*time.Second); l != "deployment.apps/web" {
		t.Fatalf("name line after label %q", l)
	}
}
