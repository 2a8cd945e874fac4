package replicaset

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type podOpt func(*corev1.Pod)

func pod(name string, opts ...podOpt) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", CreationTimestamp: metav1.Unix(100, 0)}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func onNode(n string) podOpt { return func(p *corev1.Pod) { p.Spec.NodeName = n } }
func phase(ph corev1.PodPhase) podOpt {
	return func(p *corev1.Pod) { p.Status.Phase = ph }
}
func readyAt(sec int64) podOpt {
	return func(p *corev1.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{
			Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Unix(sec, 0)})
	}
}
func created(sec int64) podOpt {
	return func(p *corev1.Pod) { p.CreationTimestamp = metav1.Unix(sec, 0) }
}
func cost(v string) podOpt {
	return func(p *corev1.Pod) { p.Annotations = map[string]string{deletionCostAnnotation: v} }
}
func restartsN(n int32) podOpt {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{RestartCount: n}}
	}
}

func TestRankForDeletion(t *testing.T) {
	cases := []struct {
		name        string
		first, then *corev1.Pod // first must be deleted before then
	}{
		{"unscheduled before scheduled", pod("a"), pod("b", onNode("n1"))},
		{"pending before running", pod("a", onNode("n1"), phase(corev1.PodPending)), pod("b", onNode("n2"), phase(corev1.PodRunning))},
		{"unknown before running", pod("a", onNode("n1"), phase(corev1.PodUnknown)), pod("b", onNode("n2"), phase(corev1.PodRunning))},
		{"not ready before ready", pod("a", onNode("n1"), phase(corev1.PodRunning)), pod("b", onNode("n2"), phase(corev1.PodRunning), readyAt(10))},
		{"lower deletion cost first", pod("a", onNode("n1"), phase(corev1.PodRunning), readyAt(10), cost("-5")),
			pod("b", onNode("n2"), phase(corev1.PodRunning), readyAt(10))},
		{"ready for less time first", pod("a", onNode("n1"), phase(corev1.PodRunning), readyAt(50)),
			pod("b", onNode("n2"), phase(corev1.PodRunning), readyAt(10))},
		{"more restarts first", pod("a", onNode("n1"), phase(corev1.PodRunning), readyAt(10), restartsN(3)),
			pod("b", onNode("n2"), phase(corev1.PodRunning), readyAt(10))},
		{"newer first", pod("a", onNode("n1"), phase(corev1.PodRunning), readyAt(10), created(200)),
			pod("b", onNode("n2"), phase(corev1.PodRunning), readyAt(10), created(100))},
	}
	for _, c := range cases {
		for _, in := range [][]*corev1.Pod{{c.first, c.then}, {c.then, c.first}} {
			got := rankForDeletion(in)
			if got[0] != c.first {
				t.Errorf("%s: ranked %s first, want %s", c.name, got[0].Name, c.first.Name)
			}
		}
	}
	// Two pods share node n1, one is alone on n2: delete from n1 first.
	a := pod("a", onNode("n1"), phase(corev1.PodRunning), readyAt(10))
	b := pod("b", onNode("n1"), phase(corev1.PodRunning), readyAt(10))
	lone := pod("c", onNode("n2"), phase(corev1.PodRunning), readyAt(10))
	if got := podsToDelete([]*corev1.Pod{lone, a, b}, 1); got[0] == lone {
		t.Errorf("deleted the only pod on n2; want one of the doubled-up pods on n1")
	}
}

func TestIsAvailable(t *testing.T) {
	now := time.Unix(100, 0)
	p := pod("a", readyAt(95))
	if !isAvailable(p, 0, now) || !isAvailable(p, 5, now) || isAvailable(p, 6, now) {
		t.Error("a pod ready for 5s is available with minReadySeconds 0 and 5, not 6")
	}
	if isAvailable(pod("b"), 0, now) {
		t.Error("a pod that is not ready is not available")
	}
}

func TestSlowStartBatch(t *testing.T) {
	var calls atomic.Int32
	ok, err := slowStartBatch(10, func() error { calls.Add(1); return nil })
	if ok != 10 || err != nil || calls.Load() != 10 {
		t.Errorf("all succeed: ok=%d err=%v calls=%d, want 10, nil, 10", ok, err, calls.Load())
	}
	calls.Store(0)
	boom := errors.New("boom")
	ok, err = slowStartBatch(10, func() error { calls.Add(1); return boom })
	if ok != 0 || !errors.Is(err, boom) || calls.Load() != 1 {
		t.Errorf("all fail: ok=%d err=%v calls=%d, want 0, boom, 1 (the first batch of one)", ok, err, calls.Load())
	}
	calls.Store(0)
	ok, err = slowStartBatch(10, func() error {
		if calls.Add(1) > 3 {
			return boom
		}
		return nil
	})
	// Batches 1, 2 succeed; the batch of 4 fails; no batch of 3 is tried.
	if ok != 3 || err == nil || calls.Load() != 7 {
		t.Errorf("fail from the 4th: ok=%d err=%v calls=%d, want 3, error, 7", ok, err, calls.Load())
	}
}
