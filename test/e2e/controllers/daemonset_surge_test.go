package controllers

import (
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// surgeDaemonSet is the reference's ds.yaml with RollingUpdate maxSurge 1,
// maxUnavailable 0.
func surgeDaemonSet() *appsv1.DaemonSet {
	l := map[string]string{"app": "agent"}
	one, zero := intstr.FromInt32(1), intstr.FromInt32(0)
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: l},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: l},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "busybox", Command: []string{"sleep", "3600"}}}},
			},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxSurge: &one, MaxUnavailable: &zero}},
		},
	}
}

// A bare pod matching the selector is adopted rather than doubled; then a
// new image rolls with maxSurge 1: on every node the new pod starts beside
// the old one, and no node is ever left without a Ready pod.
func TestDaemonSetAdoptsAndSurges(t *testing.T) {
	_, c := start(t, "--nodes=3", "--pod-ready-delay=1s")
	ctx := ctxFor(t)
	bare := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "bare", Labels: map[string]string{"app": "agent"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "busybox"}}},
	}
	if _, err := c.CoreV1().Pods(ns).Create(ctx, bare, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the bare pod Ready on a node", func() (bool, string) {
		p, err := c.CoreV1().Pods(ns).Get(ctx, "bare", metav1.GetOptions{})
		return err == nil && isReady(p) && p.Spec.NodeName != "", fmt.Sprint(err)
	})
	if _, err := c.AppsV1().DaemonSets(ns).Create(ctx, surgeDaemonSet(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the bare pod adopted", func() (bool, string) {
		p, err := c.CoreV1().Pods(ns).Get(ctx, "bare", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		ref := metav1.GetControllerOf(p)
		return ref != nil && ref.Kind == "DaemonSet" && ref.Name == "agent", fmt.Sprintf("owners %+v", p.OwnerReferences)
	})
	// The adopted pod is not of the current template: it is replaced, new
	// pod first.
	eventually(t, 60*time.Second, "3 Ready daemon pods of busybox", daemonPodsSettled(t, c, "busybox", 3))
	if p, err := c.CoreV1().Pods(ns).Get(ctx, "bare", metav1.GetOptions{}); err == nil && p.DeletionTimestamp == nil {
		t.Error("the adopted pod of an older template was never replaced")
	}

	ds, err := c.AppsV1().DaemonSets(ns).Get(ctx, "agent", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ds.Spec.Template.Spec.Containers[0].Image = "busybox:2"
	if _, err := c.AppsV1().DaemonSets(ns).Update(ctx, ds, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	sawSurge := false
	eventually(t, 60*time.Second, "3 Ready pods of busybox:2, each node always served", func() (bool, string) {
		perNode, readyPerNode := map[string]int{}, map[string]int{}
		for _, p := range livePods(t, c, "agent") {
			perNode[p.Spec.NodeName]++
			if isReady(&p) {
				readyPerNode[p.Spec.NodeName]++
			}
		}
		for node, n := range perNode {
			if n == 2 {
				sawSurge = true
			}
			if n > 2 {
				t.Fatalf("%d pods on node %s at once (maxSurge 1)", n, node)
			}
		}
		if len(readyPerNode) != 3 {
			t.Fatalf("a node without a Ready daemon pod during a maxUnavailable 0 rollout: ready per node %v", readyPerNode)
		}
		return daemonPodsSettled(t, c, "busybox:2", 3)()
	})
	if !sawSurge {
		t.Error("never saw an old and a new pod side by side on a node")
	}
	if pods := livePods(t, c, "agent"); len(pods) == 3 {
		for _, p := range pods {
			if ref := metav1.GetControllerOf(&p); ref == nil || ref.Name != "agent" {
				t.Errorf("pod %s owners %+v", p.Name, p.OwnerReferences)
			}
		}
	}
}
