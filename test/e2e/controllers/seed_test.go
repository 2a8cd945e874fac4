package controllers

import (
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestSeedExercise: create web with 3 replicas, scale to 5 and down to 1
// through the scale subresource; each time the loop closes the gap.
func TestSeedExercise(t *testing.T) {
	_, c := start(t)
	ctx := ctxFor(t)

	created, err := c.AppsV1().Deployments(ns).Create(ctx, deployment("web", "nginx", 3), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, rs := settled(t, c, "web", 3)
	checkNaming(t, c, d, rs)
	if d.Annotations["deployment.kubernetes.io/revision"] != "1" || rs.Annotations["deployment.kubernetes.io/revision"] != "1" {
		t.Errorf("revision annotations: deployment %q replicaset %q, want 1 and 1",
			d.Annotations["deployment.kubernetes.io/revision"], rs.Annotations["deployment.kubernetes.io/revision"])
	}
	if got := rs.Annotations["deployment.kubernetes.io/desired-replicas"]; got != "3" {
		t.Errorf("desired-replicas annotation = %q, want 3", got)
	}
	// 3 replicas with the default 25% surge round up to 1: max 4 pods.
	if got := rs.Annotations["deployment.kubernetes.io/max-replicas"]; got != "4" {
		t.Errorf("max-replicas annotation = %q, want 4", got)
	}
	if av := condition(d, appsv1.DeploymentAvailable); av == nil || av.Status != corev1.ConditionTrue || av.Reason != "MinimumReplicasAvailable" {
		t.Errorf("Available condition = %+v, want True/MinimumReplicasAvailable", av)
	}
	eventually(t, 10*time.Second, "Progressing NewReplicaSetAvailable", func() (bool, string) {
		d, _ := c.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
		p := condition(d, appsv1.DeploymentProgressing)
		want := fmt.Sprintf("ReplicaSet %q has successfully progressed.", rs.Name)
		return p != nil && p.Reason == "NewReplicaSetAvailable" && p.Message == want, fmt.Sprintf("%+v", p)
	})
	eventually(t, 10*time.Second, "the ScalingReplicaSet event", hasEvent(t, c, "web", "ScalingReplicaSet",
		fmt.Sprintf("Scaled up replica set %s from 0 to 3", rs.Name)))
	eventually(t, 10*time.Second, "a SuccessfulCreate event", func() (bool, string) {
		msgs := eventMessages(t, c, rs.Name, "SuccessfulCreate")
		return len(msgs) > 0 && podName.MatchString(msgs[0][len("Created pod: "):]), fmt.Sprint(msgs)
	})
	if d.UID != created.UID {
		t.Fatalf("deployment was replaced")
	}

	scaleTo := func(n int32) {
		t.Helper()
		_, err := c.AppsV1().Deployments(ns).UpdateScale(ctx, "web", &autoscalingv1.Scale{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
			Spec:       autoscalingv1.ScaleSpec{Replicas: n},
		}, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("scaling to %d: %v", n, err)
		}
	}
	scaleTo(5)
	_, rs5 := settled(t, c, "web", 5)
	if rs5.Name != rs.Name {
		t.Errorf("scaling created replicaset %s; want %s scaled", rs5.Name, rs.Name)
	}
	scaleTo(1)
	settled(t, c, "web", 1)
	eventually(t, 10*time.Second, "the scale-down event", hasEvent(t, c, "web", "ScalingReplicaSet",
		fmt.Sprintf("Scaled down replica set %s from 5 to 1", rs.Name)))
}

// TestDeletedPodIsReplaced: a pod deleted by hand comes back as a new pod.
func TestDeletedPodIsReplaced(t *testing.T) {
	_, c := start(t)
	ctx := ctxFor(t)
	if _, err := c.AppsV1().Deployments(ns).Create(ctx, deployment("web", "nginx", 2), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	settled(t, c, "web", 2)
	victim := livePods(t, c, "web")[0]
	if err := c.CoreV1().Pods(ns).Delete(ctx, victim.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "a replacement pod", func() (bool, string) {
		pods := livePods(t, c, "web")
		for _, p := range pods {
			if p.Name == victim.Name {
				return false, "victim still live"
			}
		}
		return len(pods) == 2, fmt.Sprintf("%d live pods", len(pods))
	})
	settled(t, c, "web", 2)
}

// TestReplicaSetAdoptsAndReleases: a bare ReplicaSet adopts a matching
// orphan pod (and so creates one pod fewer), and releases a pod whose
// labels stop matching, replacing it.
func TestReplicaSetAdoptsAndReleases(t *testing.T) {
	_, c := start(t)
	ctx := ctxFor(t)
	labels := map[string]string{"app": "solo"}
	orphan := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "orphan", Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx"}}},
	}
	if _, err := c.CoreV1().Pods(ns).Create(ctx, orphan, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "solo"},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr(int32(2)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx"}}},
			},
		},
	}
	rs, err := c.AppsV1().ReplicaSets(ns).Create(ctx, rs, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "adoption and one new pod", func() (bool, string) {
		pods := livePods(t, c, "solo")
		owned := 0
		for _, p := range pods {
			if ref := metav1.GetControllerOf(&p); ref != nil && ref.UID == rs.UID {
				owned++
			}
		}
		return len(pods) == 2 && owned == 2, fmt.Sprintf("%d pods, %d owned", len(pods), owned)
	})
	// Relabel the adopted pod: it is released and replaced.
	// (A patch, not get+update: the kubelet writes the pod concurrently.)
	relabel := []byte(`{"metadata":{"labels":{"app":"other"}}}`)
	if _, err := c.CoreV1().Pods(ns).Patch(ctx, "orphan", types.MergePatchType, relabel, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "release and replacement", func() (bool, string) {
		p, err := c.CoreV1().Pods(ns).Get(ctx, "orphan", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		if metav1.GetControllerOf(p) != nil {
			return false, "orphan still owned"
		}
		got, _ := c.AppsV1().ReplicaSets(ns).Get(ctx, "solo", metav1.GetOptions{})
		return len(livePods(t, c, "solo")) == 2 && got.Status.Replicas == 2 && got.Status.ObservedGeneration == got.Generation,
			fmt.Sprintf("%d pods, status %+v", len(livePods(t, c, "solo")), got.Status)
	})
}
