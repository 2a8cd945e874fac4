package scheduler

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
)

// pickNode returns the node with the fewest pods, ties going to the name
// that sorts first, or "" when there is no node. counts maps node name to
// the pods bound (or assumed bound) to it.
func pickNode(nodes []string, counts map[string]int) string {
	sorted := append([]string(nil), nodes...)
	sort.Strings(sorted)
	best := ""
	for _, n := range sorted {
		if best == "" || counts[n] < counts[best] {
			best = n
		}
	}
	return best
}

// assumption is a binding this scheduler made that the informer cache may
// not show yet.
type assumption struct {
	namespace, name string
	node            string
}

// assumed remembers bindings until the cache shows them, as kube-scheduler's
// cache does, so that a burst of pods spreads evenly even though the cache
// lags our own writes. The Scheduler's mutex guards it.
type assumed struct {
	// byUID holds every binding not yet seen in the cache; an entry is
	// dropped once the cached pod has a nodeName or is gone.
	byUID map[types.UID]assumption
}

// podGetter reads a pod from the informer cache.
type podGetter func(namespace, name string) (*corev1.Pod, bool)

// add records that pod uid was bound to node.
func (a *assumed) add(uid types.UID, as assumption) {
	if a.byUID == nil {
		a.byUID = map[types.UID]assumption{}
	}
	a.byUID[uid] = as
}

// pending counts, per node, the assumed bindings that indexed (the pods the
// caller already counted from its snapshot of the cache's node index) does
// not hold, and forgets those the cache shows. A binding the cache shows
// but the snapshot missed (the cache moved on after the snapshot) is still
// counted this once: it is counted exactly once either way.
func (a *assumed) pending(indexed sets.Set[types.UID], get podGetter) map[string]int {
	out := map[string]int{}
	for uid, as := range a.byUID {
		if indexed.Has(uid) {
			delete(a.byUID, uid)
			continue
		}
		p, ok := get(as.namespace, as.name)
		if !ok || p.UID != uid {
			delete(a.byUID, uid)
			continue
		}
		if p.Spec.NodeName != "" {
			delete(a.byUID, uid)
		}
		out[as.node]++
	}
	return out
}
