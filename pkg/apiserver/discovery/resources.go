package discovery

import (
	"sort"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// verbs of a main resource, in kube-apiserver's (alphabetical) order.
func verbs(r *registry.Resource) []string {
	if r.Verbs != nil {
		return r.Verbs
	}
	return registry.AllVerbs
}

// subresourceVerbs are the verbs a subresource lists.
func subresourceVerbs(s *registry.Subresource) []string {
	if s.Verbs != nil {
		return s.Verbs
	}
	return registry.SubresourceVerbs
}

// subresourceKind is the kind a subresource answers with (Scale in
// autoscaling/v1), or the resource's own kind with no group and version.
func subresourceKind(r *registry.Resource, s *registry.Subresource) (group, version, kind string) {
	if s.Kind.Kind != "" {
		return s.Kind.Group, s.Kind.Version, s.Kind.Kind
	}
	return "", "", r.Kind
}

// resourceList is the legacy APIResourceList of one group version: each
// resource followed by its subresources.
func resourceList(groupVersion string, members []*registry.Resource) metav1.APIResourceList {
	list := metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: groupVersion,
		APIResources: []metav1.APIResource{},
	}
	for _, r := range members {
		list.APIResources = append(list.APIResources, metav1.APIResource{
			Name: r.Resource, SingularName: r.Singular, Namespaced: r.Namespaced, Kind: r.Kind,
			Verbs: verbs(r), ShortNames: r.ShortNames, Categories: r.Categories,
			StorageVersionHash: resourceHash(r),
		})
		for _, name := range sortedSubresources(r) {
			sub := r.Subresources[name]
			g, v, k := subresourceKind(r, sub)
			list.APIResources = append(list.APIResources, metav1.APIResource{
				Name: r.Resource + "/" + name, Namespaced: r.Namespaced, Group: g, Version: v, Kind: k, Verbs: subresourceVerbs(sub),
			})
		}
	}
	return list
}

// sortedSubresources lists r's subresources in name order, but for a
// custom resource's, which kube-apiserver lists status before scale.
func sortedSubresources(r *registry.Resource) []string {
	names := make([]string, 0, len(r.Subresources))
	for name := range r.Subresources {
		names = append(names, name)
	}
	sort.Strings(names)
	if r.Schema != nil {
		sort.SliceStable(names, func(i, j int) bool { return names[i] == "status" && names[j] != "status" })
	}
	return names
}

// aggregatedList is the APIGroupDiscoveryList for /api (core only) or
// /apis (every named group).
func aggregatedList(gv groupVersions, core bool) apidiscoveryv2.APIGroupDiscoveryList {
	list := apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2"},
		Items:    []apidiscoveryv2.APIGroupDiscovery{},
	}
	for _, g := range gv.groups {
		if (g == "") != core {
			continue
		}
		group := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: g}}
		for _, v := range gv.versions[g] {
			version := apidiscoveryv2.APIVersionDiscovery{Version: v, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent}
			for _, r := range gv.members[g+"/"+v] {
				version.Resources = append(version.Resources, resourceDiscovery(r))
			}
			group.Versions = append(group.Versions, version)
		}
		list.Items = append(list.Items, group)
	}
	return list
}

func resourceDiscovery(r *registry.Resource) apidiscoveryv2.APIResourceDiscovery {
	scope := apidiscoveryv2.ScopeCluster
	if r.Namespaced {
		scope = apidiscoveryv2.ScopeNamespace
	}
	d := apidiscoveryv2.APIResourceDiscovery{
		Resource:         r.Resource,
		ResponseKind:     &metav1.GroupVersionKind{Kind: r.Kind},
		Scope:            scope,
		SingularResource: r.Singular,
		Verbs:            verbs(r),
		ShortNames:       r.ShortNames,
		Categories:       r.Categories,
	}
	for _, name := range sortedSubresources(r) {
		sub := r.Subresources[name]
		g, v, k := subresourceKind(r, sub)
		d.Subresources = append(d.Subresources, apidiscoveryv2.APISubresourceDiscovery{
			Subresource: name, ResponseKind: &metav1.GroupVersionKind{Group: g, Version: v, Kind: k}, Verbs: subresourceVerbs(sub),
		})
	}
	return d
}

// resourceHash is the storageVersionHash of r: that of the kind and
// version its objects are stored as, and none for a computed resource,
// which stores nothing (as kube-apiserver's reviews).
func resourceHash(r *registry.Resource) string {
	if r.Create != nil {
		return ""
	}
	gvk := r.StorageVersionKind()
	return storageVersionHash(gvk.Group, gvk.Version, gvk.Kind)
}
