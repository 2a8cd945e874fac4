package etcdcluster

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// TestLeaderKilledDuringRollout: the server whose controllers hold the
// Lease is killed (SIGKILL, so it cannot release the Lease) the moment a
// rollout has created its new ReplicaSet, before any of its pods can be
// ready (a pod takes --pod-ready-delay, 1 s). Another server takes the
// Lease once it expires, and its controllers finish the rollout from the
// stored state: kubectl rollout status through a survivor succeeds, and
// the Deployment's new ReplicaSet holds every replica, available.
func TestLeaderKilledDuringRollout(t *testing.T) {
	c := startCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := c.servers[0]
	if r := s.Run("kubectl", "", "create", "deployment", "web", "--image=nginx:1.27", "--replicas=3"); r.ExitCode != 0 {
		t.Fatalf("kubectl create deployment: %s", r)
	}
	if r := s.Run("kubectl", "", "rollout", "status", "deployment/web", "--timeout=60s"); r.ExitCode != 0 {
		t.Fatalf("first rollout: %s", r)
	}

	rsets, err := c.clients[0].AppsV1().ReplicaSets("default").Watch(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	defer rsets.Stop()
	if r := s.Run("kubectl", "", "set", "image", "deployment/web", "nginx=nginx:1.28"); r.ExitCode != 0 {
		t.Fatalf("kubectl set image: %s", r)
	}
	newRS := waitNewReplicaSet(t, rsets, "nginx:1.28")

	leader, identity := c.leader(t, c.clients[0], "")
	c.servers[leader].Kill()
	t.Logf("killed server %d (%s), the leader, when ReplicaSet %s appeared", leader, identity, newRS)

	alive := (leader + 1) % 3
	next, nextIdentity := c.leader(t, c.clients[alive], identity)
	t.Logf("server %d (%s) took the Lease", next, nextIdentity)
	if r := c.servers[alive].Run("kubectl", "", "rollout", "status", "deployment/web", "--timeout=90s"); r.ExitCode != 0 {
		t.Fatalf("rollout under the new leader: %s", r)
	}
	checkRolledOut(ctx, t, c, alive, newRS)
}

// waitNewReplicaSet returns the name of the first ReplicaSet the watch
// reports whose pods run image.
func waitNewReplicaSet(t *testing.T, w watch.Interface, image string) string {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatal("the ReplicaSet watch ended")
			}
			if rs, ok := ev.Object.(*appsv1.ReplicaSet); ok && rs.Spec.Template.Spec.Containers[0].Image == image {
				return rs.Name
			}
		case <-timeout:
			t.Fatalf("no ReplicaSet for %s within 30 s", image)
		}
	}
}

// checkRolledOut checks, through server i, that Deployment web is
// complete on ReplicaSet newRS: all three replicas updated and
// available, the old ReplicaSet scaled to zero, and every live pod the
// new ReplicaSet's, ready.
func checkRolledOut(ctx context.Context, t *testing.T, c *cluster, i int, newRS string) {
	t.Helper()
	apps := c.clients[i].AppsV1()
	d, err := apps.Deployments("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := d.Status
	if st.ObservedGeneration != d.Generation || st.Replicas != 3 || st.UpdatedReplicas != 3 || st.AvailableReplicas != 3 {
		t.Errorf("deployment status %+v at generation %d, want 3 replicas updated and available", st, d.Generation)
	}
	rsets, err := apps.ReplicaSets("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	for _, rs := range rsets.Items {
		want := int32(0)
		if rs.Name == newRS {
			want = 3
		}
		if *rs.Spec.Replicas != want || rs.Status.AvailableReplicas != want {
			t.Errorf("ReplicaSet %s (%s): %d replicas, %d available; want %d", rs.Name,
				rs.Spec.Template.Spec.Containers[0].Image, *rs.Spec.Replicas, rs.Status.AvailableReplicas, want)
		}
	}
	pods, err := c.clients[i].CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	live := 0
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil {
			continue // an old pod on its way out
		}
		live++
		owner := metav1.GetControllerOf(&p)
		if owner == nil || owner.Name != newRS || !podReady(&p) {
			t.Errorf("pod %s: owner %v, phase %s; want a ready pod of %s", p.Name, owner, p.Status.Phase, newRS)
		}
	}
	if live != 3 {
		t.Errorf("%d live pods, want 3", live)
	}
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
