package apiserver

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestPodBinding binds a pod through pods/binding as kube-scheduler does:
// the node, the Binding's annotations and PodScheduled=True arrive in one
// write, attributed to the binding subresource; a second binding, a name
// that is not the URL's and a missing target get kube's errors.
func TestPodBinding(t *testing.T) {
	ts := startTestServer(t)
	c := ts.client(t)
	ctx := context.Background()
	pod, err := c.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	binding := &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Name: "web", UID: pod.UID, Annotations: map[string]string{"scheduled-by": "test"}},
		Target:     corev1.ObjectReference{Kind: "Node", Name: "node-1"},
	}
	if err := c.CoreV1().Pods("default").Bind(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatalf("bind: %v", err)
	}
	bound, err := c.CoreV1().Pods("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := strconv.Atoi(pod.ResourceVersion)
	after, _ := strconv.Atoi(bound.ResourceVersion)
	if bound.Spec.NodeName != "node-1" || bound.Annotations["scheduled-by"] != "test" || !podScheduled(bound) {
		t.Fatalf("after the binding: node %q, annotations %v, conditions %+v", bound.Spec.NodeName, bound.Annotations, bound.Status.Conditions)
	}
	if after != before+1 {
		t.Errorf("the binding took revisions %d -> %d, want one write", before, after)
	}
	if last := bound.ManagedFields[len(bound.ManagedFields)-1]; last.Subresource != "binding" {
		t.Errorf("the binding's managedFields entry is %+v, want subresource binding", last)
	}

	binding.Target.Name = "node-2"
	stale := binding.DeepCopy()
	stale.UID = "another-pod"
	err = c.CoreV1().Pods("default").Bind(ctx, stale, metav1.CreateOptions{})
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "Precondition failed: UID in precondition: another-pod") {
		t.Errorf("binding with another pod's uid: %v, want kube's 409", err)
	}
	err = c.CoreV1().Pods("default").Bind(ctx, binding, metav1.CreateOptions{})
	if !apierrors.IsConflict(err) || err.Error() != `Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "node-1"` {
		t.Errorf("second binding: %v, want kube's 409", err)
	}

	code, _, body := ts.do(t, "POST", "/api/v1/namespaces/default/pods/web/binding", "application/json",
		`{"apiVersion":"v1","kind":"Binding","metadata":{"name":"other"},"target":{"name":"node-1"}}`)
	if code != http.StatusBadRequest || !strings.Contains(body, "name in URL does not match name in Binding object") {
		t.Errorf("binding with another name: %d %s", code, body)
	}
	code, _, body = ts.do(t, "POST", "/api/v1/namespaces/default/pods/web/binding", "application/json",
		`{"apiVersion":"v1","kind":"Binding","metadata":{"name":"web"},"target":{}}`)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "target.name: Required value") {
		t.Errorf("binding without a target: %d %s", code, body)
	}
	code, _, _ = ts.do(t, "PUT", "/api/v1/namespaces/default/pods/web/binding", "application/json", `{}`)
	if code != http.StatusMethodNotAllowed {
		t.Errorf("PUT pods/binding: %d, want 405 (create only)", code)
	}
}

func podScheduled(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
