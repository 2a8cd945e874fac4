package scheduler

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
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

// placements counts, per node, the pods the informer has shown holding a
// place there (bound and not finished), as kube-scheduler's cache keeps a
// summary per node: the pod informer's event handler keeps it up to date,
// so choosing a node costs the number of nodes, not of pods. The
// Scheduler's mutex guards it.
type placements struct {
	perNode map[string]int
	byUID   map[types.UID]string // the node each counted pod holds a place on
}

// set records that pod uid now holds a place on node ("": none).
func (p *placements) set(uid types.UID, node string) {
	if p.byUID == nil {
		p.perNode, p.byUID = map[string]int{}, map[types.UID]string{}
	}
	old, had := p.byUID[uid]
	if had && old == node {
		return
	}
	if had {
		if p.perNode[old]--; p.perNode[old] == 0 {
			delete(p.perNode, old)
		}
		delete(p.byUID, uid)
	}
	if node != "" {
		p.perNode[node]++
		p.byUID[uid] = node
	}
}

// placeOf is the node pod holds a place on: its node while bound and not
// finished, else "".
func placeOf(pod *corev1.Pod) string {
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return ""
	}
	return pod.Spec.NodeName
}

// assumption is a binding this scheduler made that the informer's event
// handler has not shown yet.
type assumption struct {
	namespace, name string
	node            string
}

// assumed remembers bindings until the event handler sees them, as
// kube-scheduler's cache does, so that a burst of pods spreads evenly even
// though the informer lags our own writes. The Scheduler's mutex guards it.
type assumed struct {
	// byUID holds every binding the handler has not seen yet; the handler
	// drops an entry when it sees the pod bound (and counts it in the
	// placements at the same time), pending when the pod is gone.
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

// pending counts, per node, the assumed bindings, and forgets those whose
// pod is gone from the cache or is another pod by the same name now.
func (a *assumed) pending(get podGetter) map[string]int {
	out := map[string]int{}
	for uid, as := range a.byUID {
		if p, ok := get(as.namespace, as.name); !ok || p.UID != uid {
			delete(a.byUID, uid)
			continue
		}
		out[as.node]++
	}
	return out
}
