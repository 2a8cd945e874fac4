// Package lifecycle tests the simulated cluster and the housekeeping
// controllers end to end against a real bin/miniapi: simulated nodes, the
// scheduler, the simulated kubelet, the garbage collector in its three
// propagation modes, and namespace deletion.
package lifecycle

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func ptr[T any](v T) *T { return &v }

// eventually polls cond every 20ms until it reports done, failing the test
// with cond's last word after timeout.
func eventually(t *testing.T, timeout time.Duration, cond func() (done bool, why string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	why := ""
	for time.Now().Before(deadline) {
		var done bool
		if done, why = cond(); done {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("not reached within %s: %s", timeout, why)
}

// readyNodes waits until n nodes exist and are Ready.
func readyNodes(t *testing.T, c kubernetes.Interface, n int) []corev1.Node {
	t.Helper()
	ctx := ctxFor(t)
	var nodes []corev1.Node
	eventually(t, 10*time.Second, func() (bool, string) {
		l, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		nodes = l.Items
		ready := 0
		for _, nd := range nodes {
			for _, cond := range nd.Status.Conditions {
				if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
					ready++
				}
			}
		}
		return len(nodes) == n && ready == n, fmt.Sprintf("%d nodes, %d Ready; want %d", len(nodes), ready, n)
	})
	return nodes
}

func pod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"run": name}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: name, Image: "nginx:1.27"}}},
	}
}

// deployment is what `kubectl create deployment name --image=nginx
// --replicas=n` sends.
func deployment(name string, n int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(n),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
			},
		},
	}
}

func condition(p *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

func podReady(p *corev1.Pod) bool {
	c := condition(p, corev1.PodReady)
	return p.Status.Phase == corev1.PodRunning && c != nil && c.Status == corev1.ConditionTrue
}

// markedThenGone reads w, a watch of one object opened from its
// resourceVersion before it was deleted, and returns the object as first
// seen marked for deletion (Terminating), failing the test if the object
// is DELETED without that step or is not gone within timeout. A watch
// shows every write, however slowly the test runs; a Get right after the
// delete could find the object already gone.
func markedThenGone(t *testing.T, w watch.Interface, timeout time.Duration) runtime.Object {
	t.Helper()
	var marked runtime.Object
	deadline := time.After(timeout)
	for {
		select {
		case ev, open := <-w.ResultChan():
			if !open {
				t.Fatal("the watch ended before the object was gone")
			}
			m, err := meta.Accessor(ev.Object)
			if err != nil {
				t.Fatalf("watch event %s: %v", ev.Type, ev.Object)
			}
			switch {
			case ev.Type == watch.Deleted && marked == nil:
				t.Fatalf("%s deleted at once; want it marked for deletion (Terminating) first", m.GetName())
			case ev.Type == watch.Deleted:
				return marked
			case marked == nil && m.GetDeletionTimestamp() != nil:
				marked = ev.Object
			}
		case <-deadline:
			t.Fatalf("not gone within %s (marked for deletion: %v)", timeout, marked != nil)
		}
	}
}
