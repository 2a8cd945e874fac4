package cli

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ResourceRef is one thing a command works on: a resource type and, for a
// named object, its name (empty Name means "the collection").
type ResourceRef struct {
	Mapping *meta.RESTMapping
	Name    string
}

// Namespaced reports whether the resource lives in namespaces.
func (r ResourceRef) Namespaced() bool {
	return r.Mapping.Scope.Name() == meta.RESTScopeNameNamespace
}

// ResolveResource maps one TYPE as a user types it — plural, singular, short
// name or kind, optionally qualified by group ("deployments.apps") or
// version ("deployments.v1.apps") — to a REST mapping through discovery.
// An unknown type gives a *meta.NoResourceMatchError, which PrintError words
// as kubectl does.
func (f *Factory) ResolveResource(arg string) (*meta.RESTMapping, error) {
	mapper, err := f.RESTMapper()
	if err != nil {
		return nil, err
	}
	return resolveWith(mapper, arg)
}

func resolveWith(mapper meta.RESTMapper, arg string) (*meta.RESTMapping, error) {
	lower := strings.ToLower(strings.TrimSpace(arg))
	if lower == "" {
		return nil, fmt.Errorf("resource type must not be empty")
	}
	fullGVR, gr := schema.ParseResourceArg(lower)
	gvk := schema.GroupVersionKind{}
	var firstErr error
	if fullGVR != nil {
		gvk, firstErr = mapper.KindFor(*fullGVR)
	}
	if gvk.Empty() {
		gvk, err := mapper.KindFor(gr.WithVersion(""))
		if err == nil {
			return mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		}
		if firstErr == nil {
			firstErr = err
		}
	} else {
		return mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	// Not a resource name: maybe a Kind ("Deployment", "Deployment.apps").
	fullGVK, gk := schema.ParseKindArg(arg)
	if fullGVK != nil {
		if m, err := mapper.RESTMapping(fullGVK.GroupKind(), fullGVK.Version); err == nil {
			return m, nil
		}
	}
	if m, err := mapper.RESTMapping(gk); err == nil {
		return m, nil
	}
	return nil, firstErr
}

// ResolveArgs turns kubectl-style arguments into references, in order:
//
//	TYPE                 the collection (TYPE may be "deploy,rs" or "all")
//	TYPE NAME [NAME...]  named objects of TYPE (or of every listed TYPE)
//	TYPE/NAME [...]      named objects, each with its own type
func (f *Factory) ResolveArgs(args []string) ([]ResourceRef, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("you must specify the type of resource to get")
	}
	if strings.Contains(args[0], "/") {
		return f.resolveSlashArgs(args)
	}
	types, err := f.expandTypes(args[0])
	if err != nil {
		return nil, err
	}
	var refs []ResourceRef
	if len(args) == 1 {
		for _, m := range types {
			refs = append(refs, ResourceRef{Mapping: m})
		}
		return refs, nil
	}
	for _, name := range args[1:] {
		if strings.Contains(name, "/") {
			return nil, fmt.Errorf("there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'minictl get resource/<resource_name>' instead of 'minictl get resource resource/<resource_name>'")
		}
	}
	for _, m := range types {
		for _, name := range args[1:] {
			refs = append(refs, ResourceRef{Mapping: m, Name: name})
		}
	}
	return refs, nil
}

func (f *Factory) resolveSlashArgs(args []string) ([]ResourceRef, error) {
	var refs []ResourceRef
	for _, a := range args {
		typ, name, ok := strings.Cut(a, "/")
		if !ok {
			return nil, fmt.Errorf("there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'minictl get resource/<resource_name>' instead of 'minictl get resource resource/<resource_name>'")
		}
		if name == "" {
			return nil, fmt.Errorf("arguments in resource/name form must have a single resource and name")
		}
		m, err := f.ResolveResource(typ)
		if err != nil {
			return nil, err
		}
		refs = append(refs, ResourceRef{Mapping: m, Name: name})
	}
	return refs, nil
}

// expandTypes resolves "deploy,rs" and categories such as "all".
func (f *Factory) expandTypes(arg string) ([]*meta.RESTMapping, error) {
	var out []*meta.RESTMapping
	seen := map[schema.GroupVersionResource]bool{}
	add := func(m *meta.RESTMapping) {
		if !seen[m.Resource] {
			seen[m.Resource] = true
			out = append(out, m)
		}
	}
	for _, t := range strings.Split(arg, ",") {
		if t == "" {
			continue
		}
		m, err := f.ResolveResource(t)
		if err == nil {
			add(m)
			continue
		}
		grs, ok := f.expandCategory(strings.ToLower(t))
		if !ok {
			return nil, err
		}
		for _, gr := range grs {
			m, err := f.ResolveResource(gr.Resource + "." + gr.Group)
			if err != nil {
				return nil, err
			}
			add(m)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("you must specify the type of resource to get")
	}
	return out, nil
}

// expandCategory lists the resources in a discovery category ("all") in
// the server's group order, core first, as kubectl's disk-cached discovery
// yields them (client-go's own expander follows map order).
func (f *Factory) expandCategory(name string) ([]schema.GroupResource, bool) {
	d, err := f.Discovery()
	if err != nil {
		return nil, false
	}
	groups, err := d.ServerGroups()
	if err != nil {
		return nil, false
	}
	var out []schema.GroupResource
	seen := map[schema.GroupResource]bool{}
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			list, err := d.ServerResourcesForGroupVersion(v.GroupVersion)
			if err != nil {
				continue
			}
			for _, r := range list.APIResources {
				gr := schema.GroupResource{Group: g.Name, Resource: r.Name}
				if !seen[gr] && slices.Contains(r.Categories, name) {
					seen[gr] = true
					out = append(out, gr)
				}
			}
		}
	}
	return out, len(out) > 0
}
