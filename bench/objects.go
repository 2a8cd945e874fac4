package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// parkedNode is the node every benchmark pod is bound to. The harness
// registers it as a plain Node that no kubelet serves, so neither miniapi's
// scheduler and simulated kubelet nor a real cluster's act on the pods (a
// pod bound to a node that does not exist at all would be deleted as an
// orphan): a storage workload measures the API alone while the controllers
// run, and cache the pods, as usual.
const parkedNode = "bench-parked"

// parkNode registers parkedNode.
func parkNode(ctx context.Context, cs kubernetes.Interface) error {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: parkedNode, Labels: map[string]string{"bench.miniapi.io/parked": "true"}}}
	_, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// shards is how many values the "shard" label takes; a selector on one
// value matches 1/shards of the pods.
const shards = 10

// benchPod is a pod shaped like a small real workload's: labels, an
// annotation, one container with ports, env and resources (about 1 KB of
// JSON, before the server adds its fields).
func benchPod(ns string, i int) *corev1.Pod {
	name := fmt.Sprintf("pod-%07d", i)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: ns,
			Labels:      map[string]string{"app": "bench", "tier": "web", "shard": fmt.Sprint(i % shards)},
			Annotations: map[string]string{"bench.miniapi.io/note": "created by the miniapi benchmark"},
		},
		Spec: corev1.PodSpec{
			NodeName: parkedNode,
			// a real cluster taints a node without a kubelet; stay anyway
			Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			Containers: []corev1.Container{{
				Name: "web", Image: "registry.example/web:1.2.3",
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
				Env: []corev1.EnvVar{
					{Name: "POD_INDEX", Value: fmt.Sprint(i)},
					{Name: "LOG_LEVEL", Value: "info"},
				},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
					Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi")},
				},
			}},
		},
	}
}

// benchDeployment runs replicas of a pod template that miniapi's simulated
// kubelet starts.
func benchDeployment(ns string, i int, replicas int32) *appsv1.Deployment {
	name := fmt.Sprintf("web-%05d", i)
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "web", Image: "registry.example/web:1.2.3",
				}}},
			},
		},
	}
}

// createPods creates pods from..to-1 in ns with n concurrent clients and
// records each create's latency in lat (when not nil). It returns the wall
// time the whole batch took.
func createPods(ctx context.Context, cs kubernetes.Interface, ns string, from, to, n int, lat *latencies) (time.Duration, error) {
	return parallel(ctx, from, to, n, func(ctx context.Context, i int) error {
		t0 := time.Now()
		_, err := cs.CoreV1().Pods(ns).Create(ctx, benchPod(ns, i), metav1.CreateOptions{})
		if err == nil && lat != nil {
			lat.add(time.Since(t0))
		}
		return err
	})
}

// parallel runs do(i) for every i in [from, to) on n goroutines and stops
// at the first error.
func parallel(ctx context.Context, from, to, n int, do func(context.Context, int) error) (time.Duration, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next atomic.Int64
	next.Store(int64(from))
	var once sync.Once
	var first error
	var wg sync.WaitGroup
	t0 := time.Now()
	for range max(1, n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < to; i = int(next.Add(1) - 1) {
				if err := do(ctx, i); err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
			}
		})
	}
	wg.Wait()
	return time.Since(t0), first
}
