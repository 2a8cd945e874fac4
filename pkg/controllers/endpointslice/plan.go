package endpointslice

import (
	"maps"
	"sort"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// plan is what one reconcile writes for one address type.
type plan struct {
	create, update, remove []*discoveryv1.EndpointSlice
}

// planner decides the writes that turn the existing slices of one address
// type into the desired groups, changing as few slices as it can, as
// kube's reconciler does: an endpoint stays in the slice that has it,
// new endpoints fill slices being written anyway before untouched ones,
// new slices are made only when the others are full, a slice left empty
// goes, and a slice that would be deleted is reused for one that would be
// created.
type planner struct {
	svc      *corev1.Service
	addrType discoveryv1.AddressType
	labels   map[string]string
	max      int
}

func (p *planner) plan(existing []*discoveryv1.EndpointSlice, groups map[string]*portGroup) plan {
	var out plan
	byKey := map[string][]*discoveryv1.EndpointSlice{}
	for _, s := range existing {
		k := portsKey(s.Ports)
		byKey[k] = append(byKey[k], s)
	}
	for _, key := range sortedKeys(groups) {
		p.planGroup(&out, byKey[key], groups[key])
		delete(byKey, key)
	}
	for _, key := range sortedKeys(byKey) {
		out.remove = append(out.remove, byKey[key]...)
	}
	// A Service always has a slice, if only an empty one.
	if len(out.create) == 0 && len(out.remove) == len(existing) {
		placeholder := p.newSlice(nil)
		if len(out.remove) == 1 && p.isPlaceholder(out.remove[0]) {
			out.remove = nil
		} else {
			out.create = append(out.create, placeholder)
		}
	}
	p.reuseRemoved(&out)
	return out
}

// planGroup fits one group's endpoints into the slices with its ports.
func (p *planner) planGroup(out *plan, slices []*discoveryv1.EndpointSlice, g *portGroup) {
	sort.Slice(slices, func(i, j int) bool { return slices[i].Name < slices[j].Name })
	want := make(map[string]*discoveryv1.Endpoint, len(g.endpoints))
	for i := range g.endpoints {
		want[endpointKey(&g.endpoints[i])] = &g.endpoints[i]
	}
	var changed, unchanged []*discoveryv1.EndpointSlice
	for _, s := range slices {
		kept, dirty := []discoveryv1.Endpoint{}, !p.labelsMatch(s)
		for i := range s.Endpoints {
			k := endpointKey(&s.Endpoints[i])
			d, ok := want[k]
			if !ok {
				dirty = true
				continue
			}
			if !sameEndpoint(d, &s.Endpoints[i]) {
				dirty = true
			}
			kept = append(kept, *d)
			delete(want, k)
		}
		switch {
		case len(kept) == 0:
			out.remove = append(out.remove, s)
		case dirty:
			changed = append(changed, p.rewrite(s, g.ports, kept))
		default:
			unchanged = append(unchanged, s)
		}
	}
	var pending []discoveryv1.Endpoint
	for i := range g.endpoints {
		if _, ok := want[endpointKey(&g.endpoints[i])]; ok {
			pending = append(pending, g.endpoints[i])
		}
	}
	// Fill slices being written anyway, then untouched ones, then new ones.
	for _, s := range changed {
		n := min(p.max-len(s.Endpoints), len(pending))
		s.Endpoints, pending = append(s.Endpoints, pending[:n]...), pending[n:]
	}
	for _, s := range unchanged {
		if len(pending) == 0 || len(s.Endpoints) >= p.max {
			continue
		}
		n := min(p.max-len(s.Endpoints), len(pending))
		w := p.rewrite(s, g.ports, append(append([]discoveryv1.Endpoint{}, s.Endpoints...), pending[:n]...))
		pending = pending[n:]
		changed = append(changed, w)
	}
	for len(pending) > 0 {
		n := min(p.max, len(pending))
		s := p.newSlice(g.ports)
		s.Endpoints, pending = pending[:n], pending[n:]
		out.create = append(out.create, s)
	}
	out.update = append(out.update, changed...)
}

// reuseRemoved turns a create and a delete into an update of the slice
// that would be deleted: its name stays, and nothing disappears for a
// moment from what kube-proxy would see.
func (p *planner) reuseRemoved(out *plan) {
	var keep []*discoveryv1.EndpointSlice
	for _, s := range out.remove {
		if len(out.create) == 0 || !metav1.IsControlledBy(s, p.svc) {
			keep = append(keep, s)
			continue
		}
		c := out.create[0]
		out.create = out.create[1:]
		out.update = append(out.update, p.rewrite(s, c.Ports, c.Endpoints))
	}
	out.remove = keep
}

// newSlice is a slice to create for ports, owned by the Service.
func (p *planner) newSlice(ports []discoveryv1.EndpointPort) *discoveryv1.EndpointSlice {
	yes := true
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: generateName(p.svc),
			Namespace:    p.svc.Namespace,
			Labels:       maps.Clone(p.labels),
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Service", Name: p.svc.Name, UID: p.svc.UID,
				Controller: &yes, BlockOwnerDeletion: &yes,
			}},
		},
		AddressType: p.addrType,
		Ports:       ports,
	}
}

// rewrite is s with new ports and endpoints and the desired labels.
func (p *planner) rewrite(s *discoveryv1.EndpointSlice, ports []discoveryv1.EndpointPort, eps []discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	w := s.DeepCopy()
	w.Labels = maps.Clone(p.labels)
	w.Ports = ports
	w.Endpoints = eps
	if len(eps) == 0 {
		w.Endpoints = nil
	}
	return w
}

func (p *planner) labelsMatch(s *discoveryv1.EndpointSlice) bool {
	return maps.Equal(s.Labels, p.labels)
}

// isPlaceholder reports whether s is already the empty slice the Service
// would get.
func (p *planner) isPlaceholder(s *discoveryv1.EndpointSlice) bool {
	return len(s.Endpoints) == 0 && len(s.Ports) == 0 && p.labelsMatch(s) && metav1.IsControlledBy(s, p.svc)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
