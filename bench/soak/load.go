package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// load is the soak's steady work: ConfigMaps created, patched and deleted
// at a fixed rate, Deployments scaled up and down so that the ReplicaSet
// controller, the simulated kubelet and the garbage collector keep
// working, and watchers that read every change.
type load struct {
	cs  kubernetes.Interface
	ns  string
	cfg config

	writes    atomic.Int64 // ConfigMap and Deployment writes that succeeded
	failures  atomic.Int64 // writes that failed
	events    atomic.Int64 // watch events the watchers received
	rewatches atomic.Int64 // watches started again after they ended
}

// churnWorkers share the ConfigMap rate, so that one slow write does not
// stall the others.
const churnWorkers = 4

// run starts every part and returns when ctx ends and all have stopped.
func (l *load) run(ctx context.Context) {
	var wg sync.WaitGroup
	for i := range l.cfg.Watchers {
		resource := "configmaps"
		if i%2 == 1 {
			resource = "pods"
		}
		wg.Go(func() { l.watch(ctx, resource) })
	}
	for w := range churnWorkers {
		wg.Go(func() { l.churn(ctx, w) })
	}
	wg.Go(func() { l.scale(ctx) })
	wg.Wait()
}

// churn cycles its ConfigMaps through create, patch, patch, delete, one
// step per tick of its share of the rate.
func (l *load) churn(ctx context.Context, worker int) {
	const slots = 25 // ConfigMaps per worker
	step := make([]int, slots)
	tick := time.NewTicker(time.Duration(float64(time.Second) * churnWorkers / l.cfg.Rate))
	defer tick.Stop()
	data := strings.Repeat("d", 1024)
	cms := l.cs.CoreV1().ConfigMaps(l.ns)
	for i := 0; ; i = (i + 1) % slots {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		name := fmt.Sprintf("cm-%d-%d", worker, i)
		var err error
		switch step[i] % 4 {
		case 0:
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"d": data}}
			_, err = cms.Create(ctx, cm, metav1.CreateOptions{})
		case 1, 2:
			patch := fmt.Sprintf(`{"data":{"step":"%d"}}`, step[i])
			_, err = cms.Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		case 3:
			err = cms.Delete(ctx, name, metav1.DeleteOptions{})
		}
		step[i]++
		l.count(ctx, err)
	}
}

// scale creates the Deployments, then every few seconds sets one of them
// to the next size in 1..4.
func (l *load) scale(ctx context.Context) {
	deps := l.cs.AppsV1().Deployments(l.ns)
	for i := range l.cfg.Deployments {
		_, err := deps.Create(ctx, deployment(fmt.Sprintf("d%d", i)), metav1.CreateOptions{})
		l.count(ctx, err)
	}
	tick := time.NewTicker(l.cfg.ScaleEvery)
	defer tick.Stop()
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		name := fmt.Sprintf("d%d", n%l.cfg.Deployments)
		patch := fmt.Sprintf(`{"spec":{"replicas":%d}}`, 1+(n/l.cfg.Deployments)%4)
		_, err := deps.Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		l.count(ctx, err)
	}
}

func (l *load) count(ctx context.Context, err error) {
	switch {
	case err == nil:
		l.writes.Add(1)
	case ctx.Err() == nil:
		l.failures.Add(1)
	}
}

// watch keeps one watch on resource in the namespace open, resuming from
// the last resourceVersion it saw when the server ends it, and from now
// after a 410.
func (l *load) watch(ctx context.Context, resource string) {
	rv := ""
	for ctx.Err() == nil {
		opts := metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true}
		var w watch.Interface
		var err error
		if resource == "pods" {
			w, err = l.cs.CoreV1().Pods(l.ns).Watch(ctx, opts)
		} else {
			w, err = l.cs.CoreV1().ConfigMaps(l.ns).Watch(ctx, opts)
		}
		if err != nil {
			if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
				rv = ""
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		rv = l.drain(w, rv)
		l.rewatches.Add(1)
	}
}

// drain reads w to its end and returns the last resourceVersion seen.
func (l *load) drain(w watch.Interface, rv string) string {
	defer w.Stop()
	for ev := range w.ResultChan() {
		if ev.Type == watch.Error {
			return "" // 410 and the like: start again from now
		}
		l.events.Add(1)
		if m, ok := ev.Object.(metav1.Object); ok {
			rv = m.GetResourceVersion()
		}
	}
	return rv
}

func deployment(name string) *appsv1.Deployment {
	one := int32(1)
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &one,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
			},
		},
	}
}
