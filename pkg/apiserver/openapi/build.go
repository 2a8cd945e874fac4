package openapi

import (
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// model is everything the documents are rendered from: the definitions
// and, per group version, the paths.
type model struct {
	defs *definitions
	// groupVersions in registry order, as "api/v1" or "apis/apps/v1".
	groupVersions []string
	paths         map[string][]pathItem
}

// gvPath is the OpenAPI v3 path of a group version: api/v1, apis/apps/v1.
func gvPath(group, version string) string {
	if group == "" {
		return "api/" + version
	}
	return "apis/" + group + "/" + version
}

func buildModel(resources []*registry.Resource) (model, error) {
	d := newDefinitions()
	m := model{defs: d, paths: map[string][]pathItem{}}
	d.addKind(&metav1.Status{}, schema.GroupVersionKind{Version: "v1", Kind: "Status"})
	d.use(metav1.Patch{}.OpenAPIModelName())
	d.use(metav1.DeleteOptions{}.OpenAPIModelName())
	for _, r := range resources {
		kind, list, err := addKinds(d, r)
		if err != nil {
			return model{}, err
		}
		gv := gvPath(r.Group, r.Version)
		if _, seen := m.paths[gv]; !seen {
			m.groupVersions = append(m.groupVersions, gv)
		}
		m.paths[gv] = append(m.paths[gv], pathsFor(d, r, kind, list)...)
	}
	return m, d.err
}

// addKinds adds the definitions of a resource's kind and list kind and
// returns their names ("" for a resource that cannot be listed).
func addKinds(d *definitions, r *registry.Resource) (kind, list string, err error) {
	if r.Schema != nil {
		// kube-apiserver's custom resource documents mark only their own
		// kinds with the group version, not DeleteOptions or WatchEvent.
		return d.addCustomKind(r)
	}
	gv := r.GroupVersionResource().GroupVersion()
	kind = d.addKind(r.New(), r.GroupVersionKind())
	if r.NewList != nil {
		list = d.addKind(r.NewList(), gv.WithKind(r.ListKind))
	}
	d.addKind(&metav1.DeleteOptions{}, gv.WithKind("DeleteOptions"))
	d.addKind(&metav1.WatchEvent{}, gv.WithKind("WatchEvent"))
	return kind, list, nil
}

// rootsOf lists the definitions a group version's operations name: its
// v3 document carries those and what they refer to.
func rootsOf(items []pathItem) []string {
	set := map[string]bool{}
	for _, it := range items {
		for _, op := range it.ops {
			if op.body != "" {
				set[op.body] = true
			}
			for _, def := range op.responses {
				set[def] = true
			}
		}
	}
	roots := make([]string, 0, len(set))
	for r := range set {
		roots = append(roots, r)
	}
	sort.Strings(roots)
	return roots
}
