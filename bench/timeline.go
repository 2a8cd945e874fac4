package main

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// podTimeline watches the pods of a namespace during a reconcile round and
// records when each pod was first seen created, bound to a node and Ready,
// so the round's time splits into stages: which step the pods waited for.
type podTimeline struct {
	t0 time.Time

	mu                     sync.Mutex
	created, bound, ready  map[string]time.Duration
	lastCreated, lastBound time.Duration
	lastReady              time.Duration
	done                   chan struct{}
}

// watchPods starts recording; stop ends the watch and waits for it.
func watchPods(ctx context.Context, c *cluster, ns string, t0 time.Time) (tl *podTimeline, stop func(), err error) {
	w, err := c.cs.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, nil, err
	}
	tl = &podTimeline{t0: t0, created: map[string]time.Duration{}, bound: map[string]time.Duration{}, ready: map[string]time.Duration{}, done: make(chan struct{})}
	go func() {
		defer close(tl.done)
		for ev := range w.ResultChan() {
			if p, ok := ev.Object.(*corev1.Pod); ok {
				tl.see(p, time.Since(t0))
			}
		}
	}()
	return tl, func() { w.Stop(); <-tl.done }, nil
}

func (tl *podTimeline) see(p *corev1.Pod, at time.Duration) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	mark := func(m map[string]time.Duration, last *time.Duration) {
		if _, ok := m[p.Name]; !ok {
			m[p.Name] = at
			*last = max(*last, at)
		}
	}
	mark(tl.created, &tl.lastCreated)
	if p.Spec.NodeName != "" {
		mark(tl.bound, &tl.lastBound)
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			mark(tl.ready, &tl.lastReady)
		}
	}
}

// stages returns, in seconds since t0, when the last pod was created,
// bound and Ready, and the median pod's time from created to bound and
// from bound to Ready.
func (tl *podTimeline) stages() (lastCreated, lastBound, lastReady, toBind, toReady float64) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	var bind, ready []time.Duration
	for name, c := range tl.created {
		if b, ok := tl.bound[name]; ok {
			bind = append(bind, b-c)
			if r, ok := tl.ready[name]; ok {
				ready = append(ready, r-b)
			}
		}
	}
	med := func(d []time.Duration) float64 {
		if len(d) == 0 {
			return 0
		}
		return median(d).Seconds()
	}
	return tl.lastCreated.Seconds(), tl.lastBound.Seconds(), tl.lastReady.Seconds(), med(bind), med(ready)
}
