package controllers

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// podCensus watches the pods of one app and records the extremes seen
// during a rollout: the most pods not being deleted, the fewest Ready, and
// whether pods of two templates ever existed at once.
type podCensus struct {
	mu       sync.Mutex
	pods     map[string]*corev1.Pod
	maxLive  int
	minReady int
	mixed    bool // pods of two pod-template-hashes existed at the same time
	stop     func()
	done     chan struct{}
}

func watchPods(t *testing.T, c kubernetes.Interface, app string) *podCensus {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	list, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + app})
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{LabelSelector: "app=" + app, ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	pc := &podCensus{pods: map[string]*corev1.Pod{}, minReady: 1 << 30, done: make(chan struct{})}
	for i := range list.Items {
		pc.pods[list.Items[i].Name] = &list.Items[i]
	}
	pc.tally()
	pc.stop = func() { cancel(); w.Stop(); <-pc.done }
	go func() {
		defer close(pc.done)
		for ev := range w.ResultChan() {
			pod, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			pc.mu.Lock()
			if ev.Type == watch.Deleted {
				delete(pc.pods, pod.Name)
			} else {
				pc.pods[pod.Name] = pod
			}
			pc.tally()
			pc.mu.Unlock()
		}
	}()
	t.Cleanup(pc.stop)
	return pc
}

func (pc *podCensus) tally() {
	live, ready := 0, 0
	hashes := map[string]bool{}
	for _, p := range pc.pods {
		hashes[p.Labels["pod-template-hash"]] = true
		if p.DeletionTimestamp != nil {
			continue
		}
		live++
		if isReady(p) {
			ready++
		}
	}
	pc.maxLive = max(pc.maxLive, live)
	pc.minReady = min(pc.minReady, ready)
	pc.mixed = pc.mixed || len(hashes) > 1
}

func (pc *podCensus) result() (maxLive, minReady int, mixed bool) {
	pc.stop()
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.maxLive, pc.minReady, pc.mixed
}

func setImage(t *testing.T, c kubernetes.Interface, name, image string) {
	t.Helper()
	patch := fmt.Sprintf(`{"spec":{"template":{"spec":{"containers":[{"name":"app","image":%q}]}}}}`, image)
	if _, err := c.AppsV1().Deployments(ns).Patch(context.Background(), name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("setting image %s: %v", image, err)
	}
}

func revision(obj metav1.Object) string {
	return obj.GetAnnotations()["deployment.kubernetes.io/revision"]
}

// TestRollingUpdate changes the image of a 4-replica Deployment with
// maxSurge 1 and maxUnavailable 1, and checks with a watch that the
// rollout never ran more than 5 pods nor fewer than 3 ready ones.
func TestRollingUpdate(t *testing.T) {
	_, c := start(t, "--pod-ready-delay=150ms")
	d := rollingUpdate(deployment("web", "nginx:1.26", 4), intstr.FromInt32(1), intstr.FromInt32(1))
	if _, err := c.AppsV1().Deployments(ns).Create(context.Background(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, oldRS := settled(t, c, "web", 4)

	census := watchPods(t, c, "web")
	setImage(t, c, "web", "nginx:1.27")
	got, newRS := settled(t, c, "web", 4)
	maxLive, minReady, _ := census.result()
	t.Logf("during the rollout: at most %d live pods, at least %d ready", maxLive, minReady)

	if newRS.Name == oldRS.Name || newRS.Spec.Template.Spec.Containers[0].Image != "nginx:1.27" {
		t.Fatalf("active replicaset after the rollout is %s (%s); want a new one running nginx:1.27",
			newRS.Name, newRS.Spec.Template.Spec.Containers[0].Image)
	}
	old, err := c.AppsV1().ReplicaSets(ns).Get(context.Background(), oldRS.Name, metav1.GetOptions{})
	if err != nil || *old.Spec.Replicas != 0 {
		t.Errorf("old replicaset %s: %v, replicas %v; want kept at 0 for rollback", oldRS.Name, err, old.Spec.Replicas)
	}
	if revision(got) != "2" || revision(newRS) != "2" || revision(old) != "1" {
		t.Errorf("revisions: deployment %q new %q old %q, want 2, 2, 1", revision(got), revision(newRS), revision(old))
	}
	if maxLive > 5 {
		t.Errorf("up to %d pods ran during the rollout; maxSurge 1 allows 5", maxLive)
	}
	if minReady < 3 {
		t.Errorf("only %d pods were ready at one point; maxUnavailable 1 promises 3", minReady)
	}
	// How many pods the last step removes depends on how fast new pods
	// turned ready (a loaded machine readies them in bigger batches), so
	// any last step to 0 will do.
	eventually(t, 10*time.Second, "the scale-down event of the old replicaset", func() (bool, string) {
		msgs := eventMessages(t, c, "web", "ScalingReplicaSet")
		prefix := fmt.Sprintf("Scaled down replica set %s from ", oldRS.Name)
		for _, m := range msgs {
			if strings.HasPrefix(m, prefix) && strings.HasSuffix(m, " to 0") {
				return true, ""
			}
		}
		return false, fmt.Sprintf("ScalingReplicaSet events for web: %q", msgs)
	})
}

// TestRecreate: old pods are all gone before any new one is created.
func TestRecreate(t *testing.T) {
	_, c := start(t, "--pod-ready-delay=100ms")
	d := deployment("batch", "worker:1", 3)
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	if _, err := c.AppsV1().Deployments(ns).Create(context.Background(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, oldRS := settled(t, c, "batch", 3)
	census := watchPods(t, c, "batch")
	setImage(t, c, "batch", "worker:2")
	_, newRS := settled(t, c, "batch", 3)
	_, _, mixed := census.result()
	if newRS.Name == oldRS.Name {
		t.Fatalf("no new replicaset")
	}
	if mixed {
		t.Error("old and new pods existed at the same time; Recreate must remove every old pod first")
	}
}

// TestPausedDeployment: while paused, a template change does not roll out
// but scaling still applies; resuming rolls out.
func TestPausedDeployment(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	if _, err := c.AppsV1().Deployments(ns).Create(ctx, deployment("web", "nginx:1.26", 2), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, rs := settled(t, c, "web", 2)
	patch := func(p string) {
		t.Helper()
		if _, err := c.AppsV1().Deployments(ns).Patch(ctx, "web", types.MergePatchType, []byte(p), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	patch(`{"spec":{"paused":true}}`)
	setImage(t, c, "web", "nginx:1.27")
	patch(`{"spec":{"replicas":3}}`)

	// Paused: the old template's ReplicaSet is scaled to 3, and none of
	// the pods runs the current template (updatedReplicas 0).
	var d *appsv1.Deployment
	eventually(t, 20*time.Second, "the paused deployment to scale", func() (bool, string) {
		var err error
		if d, err = c.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{}); err != nil {
			return false, err.Error()
		}
		st := d.Status
		cur, _ := c.AppsV1().ReplicaSets(ns).Get(ctx, rs.Name, metav1.GetOptions{})
		return st.ObservedGeneration == d.Generation && st.Replicas == 3 && st.AvailableReplicas == 3 && st.UpdatedReplicas == 0 &&
			cur.Status.ReadyReplicas == 3, fmt.Sprintf("generation %d status %+v", d.Generation, st)
	})
	if n := len(replicaSetsOf(t, c, d)); n != 1 {
		t.Errorf("%d replicasets while paused, want 1", n)
	}
	if p := condition(d, appsv1.DeploymentProgressing); p == nil || p.Status != corev1.ConditionUnknown || p.Reason != "DeploymentPaused" {
		t.Errorf("Progressing while paused = %+v, want Unknown/DeploymentPaused", p)
	}
	patch(`{"spec":{"paused":false}}`)
	eventually(t, 20*time.Second, "the rollout after resuming", func() (bool, string) {
		d, err := c.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return revision(d) == "2" && d.Status.UpdatedReplicas == 3 && d.Status.AvailableReplicas == 3, fmt.Sprintf("%+v", d.Status)
	})
	_, cur := settled(t, c, "web", 3)
	if cur.Name == rs.Name {
		t.Error("resumed deployment did not move to a new replicaset")
	}
}

// TestRollbackReusesReplicaSet: putting the first template back (what
// `kubectl rollout undo` sends) re-uses the first ReplicaSet, whose
// revision becomes 3, with 1 moved to revision-history.
func TestRollbackReusesReplicaSet(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	if _, err := c.AppsV1().Deployments(ns).Create(ctx, deployment("web", "nginx:1.26", 2), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, first := settled(t, c, "web", 2)
	setImage(t, c, "web", "nginx:1.27")
	eventually(t, 20*time.Second, "revision 2", func() (bool, string) {
		d, _ := c.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
		return revision(d) == "2", revision(d)
	})
	settled(t, c, "web", 2)
	setImage(t, c, "web", "nginx:1.26")
	eventually(t, 20*time.Second, "revision 3", func() (bool, string) {
		d, _ := c.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
		return revision(d) == "3", revision(d)
	})
	d, cur := settled(t, c, "web", 2)
	if cur.Name != first.Name {
		t.Errorf("rollback runs %s, want the first replicaset %s again", cur.Name, first.Name)
	}
	if revision(cur) != "3" || cur.Annotations["deployment.kubernetes.io/revision-history"] != "1" {
		t.Errorf("rolled-back replicaset annotations %v, want revision 3 and revision-history 1", cur.Annotations)
	}
	if n := len(replicaSetsOf(t, c, d)); n != 2 {
		t.Errorf("%d replicasets, want 2 (no third for a template seen before)", n)
	}
}
