package servicepods

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// TriggerTimes computes the endpoints.kubernetes.io/last-change-trigger-time
// annotation as kube-controller-manager does: the earliest change since the
// last reconcile of a Service that explains why its endpoints are written
// now. A Service seen for the first time is explained by its creation; after
// that, by the earliest pod whose Ready condition moved (or the Service, if
// it was made again). Nothing new gives the zero time (no annotation).
//
// It remembers what it saw per Service, so it lives as long as the
// controller; safe for concurrent use.
type TriggerTimes struct {
	mu sync.Mutex
	// seen holds, per "namespace/name", the trigger times last computed.
	seen map[string]triggerState
}

type triggerState struct {
	service time.Time
	pods    map[string]time.Time // pod name → Ready transition time
}

// Compute returns the trigger time for svc with pods and remembers them.
func (t *TriggerTimes) Compute(svc *corev1.Service, pods []*corev1.Pod) time.Time {
	key := svc.Namespace + "/" + svc.Name
	t.mu.Lock()
	defer t.mu.Unlock()
	old, known := t.seen[key]
	cur := triggerState{service: svc.CreationTimestamp.Time, pods: make(map[string]time.Time, len(pods))}
	var earliest time.Time
	earlier := func(ts time.Time) {
		if earliest.IsZero() || ts.Before(earliest) {
			earliest = ts
		}
	}
	for _, pod := range pods {
		c := readyCondition(pod)
		if c == nil || c.LastTransitionTime.IsZero() {
			continue
		}
		ts := c.LastTransitionTime.Time
		cur.pods[pod.Name] = ts
		if ts.After(old.pods[pod.Name]) {
			earlier(ts)
		}
	}
	if cur.service.After(old.service) {
		earlier(cur.service)
	}
	if t.seen == nil {
		t.seen = map[string]triggerState{}
	}
	t.seen[key] = cur
	if !known {
		return cur.service
	}
	return earliest
}

// Forget drops what was remembered about the Service key.
func (t *TriggerTimes) Forget(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.seen, key)
}
