package openapi

import (
	"reflect"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// model is everything the documents are rendered from: the schemas and,
// per group version, the paths.
type model struct {
	defs map[string]spec.Schema
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

func buildModel(resources []*registry.Resource, v3 bool) (model, error) {
	d := newDefinitions(v3)
	m := model{paths: map[string][]pathItem{}}
	d.addKind(reflect.TypeFor[metav1.Status](), schema.GroupVersionKind{Version: "v1", Kind: "Status"})
	d.named(reflect.TypeFor[metav1.Patch]())
	d.named(reflect.TypeFor[metav1.DeleteOptions]())
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
	m.defs = d.finish()
	return m, nil
}

// addKinds adds the definitions of a resource's kind and list kind and
// returns their names ("" for a resource that cannot be listed).
func addKinds(d *definitions, r *registry.Resource) (kind, list string, err error) {
	if r.Schema != nil {
		// kube-apiserver's custom resource documents mark only their own
		// kinds with the group version, not DeleteOptions or WatchEvent.
		return d.addCustomKind(r)
	}
	kind = d.addKind(reflect.TypeOf(r.New()), r.GroupVersionKind())
	if r.NewList != nil {
		list = d.addKind(reflect.TypeOf(r.NewList()), r.GroupVersionResource().GroupVersion().WithKind(r.ListKind))
	}
	for _, k := range []string{"DeleteOptions", "WatchEvent"} {
		t := reflect.TypeFor[metav1.DeleteOptions]()
		if k == "WatchEvent" {
			t = reflect.TypeFor[metav1.WatchEvent]()
		}
		d.addKind(t, r.GroupVersionResource().GroupVersion().WithKind(k))
	}
	return kind, list, nil
}

// reachable is the set of definitions the given roots refer to,
// transitively, so that each v3 document carries only what it uses.
func (m model) reachable(roots []string) map[string]spec.Schema {
	out := map[string]spec.Schema{}
	var visit func(name string)
	visit = func(name string) {
		if _, done := out[name]; done {
			return
		}
		s, ok := m.defs[name]
		if !ok {
			return
		}
		out[name] = s
		for _, ref := range refsIn(s) {
			visit(ref)
		}
	}
	for _, r := range roots {
		visit(r)
	}
	return out
}

// refsIn lists the definition names a schema refers to.
func refsIn(s spec.Schema) []string {
	var refs []string
	var walk func(s *spec.Schema)
	walk = func(s *spec.Schema) {
		if s == nil {
			return
		}
		if r := s.Ref.String(); r != "" {
			refs = append(refs, r[strings.LastIndex(r, "/")+1:])
		}
		for _, p := range s.Properties {
			walk(&p)
		}
		if s.Items != nil {
			walk(s.Items.Schema)
		}
		if s.AdditionalProperties != nil {
			walk(s.AdditionalProperties.Schema)
		}
		for i := range s.AllOf {
			walk(&s.AllOf[i])
		}
	}
	walk(&s)
	return refs
}

// rootsOf lists the definitions a group version's operations name.
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
