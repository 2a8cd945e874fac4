package cli

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// waitScope is one thing wait selects: a named object, or the objects of
// a type that match the selectors.
type waitScope struct {
	info      *objectInfo // Name is empty for a selection
	labelSel  string
	fieldSel  string
	allSpaces bool
}

func (s waitScope) client(dyn dynamic.Interface) dynamic.ResourceInterface {
	if s.info.Name == "" && s.allSpaces {
		return dyn.Resource(s.info.Mapping.Resource)
	}
	return s.info.client(dyn)
}

// scopes resolves the arguments and -f files into what to wait on, in the
// order kubectl's builder visits them.
func (o *waitOptions) scopes(env *writeEnv, args []string) ([]waitScope, error) {
	if len(o.targets.files.Filenames) > 0 {
		infos, errs, err := env.readInfos(o.targets.files)
		if err == nil && len(errs) > 0 {
			err = errs[0]
		}
		if err != nil {
			return nil, err
		}
		var out []waitScope
		for _, info := range infos {
			out = append(out, waitScope{info: info})
		}
		return out, nil
	}
	if len(args) == 0 {
		return nil, errNoResources
	}
	refs, err := env.f.ResolveArgs(args)
	if err != nil {
		return nil, err
	}
	var out []waitScope
	for _, r := range refs {
		info := env.refInfo(r, r.Name, env.target.Namespace)
		if r.Name != "" {
			out = append(out, waitScope{info: info})
			continue
		}
		if o.targets.selector == "" && o.fieldSelector == "" && !o.targets.all {
			return nil, fmt.Errorf("resource(s) were provided, but no name was specified")
		}
		out = append(out, waitScope{info: info, labelSel: o.targets.selector, fieldSel: o.fieldSelector, allSpaces: o.targets.allNamespaces})
	}
	return out, nil
}

// eachTarget fetches every selected object live and hands it to each (or
// the error that fetching it gave).
func (o *waitOptions) eachTarget(ctx context.Context, env *writeEnv, args []string, each func(*objectInfo, error)) error {
	scopes, err := o.scopes(env, args)
	if err != nil {
		return err
	}
	dyn, err := env.f.Dynamic()
	if err != nil {
		return err
	}
	for _, s := range scopes {
		if s.info.Name != "" {
			err := fetchLive(ctx, dyn, s.info)
			each(s.info, err)
			continue
		}
		list, err := s.client(dyn).List(ctx, metav1.ListOptions{LabelSelector: s.labelSel, FieldSelector: s.fieldSel})
		if err != nil {
			each(nil, err)
			continue
		}
		for i := range list.Items {
			it := &list.Items[i]
			info := &objectInfo{Mapping: s.info.Mapping, Name: it.GetName(), Namespace: it.GetNamespace(), Obj: it}
			each(info, nil)
		}
	}
	return nil
}

// waitCreated blocks until every selected object exists (a selection:
// until one object matches), watching rather than polling.
func (o *waitOptions) waitCreated(ctx context.Context, env *writeEnv, args []string) error {
	scopes, err := o.scopes(env, args)
	if err != nil {
		return err
	}
	dyn, err := env.f.Dynamic()
	if err != nil {
		return err
	}
	for _, s := range scopes {
		fieldSel, labelSel := s.fieldSel, s.labelSel
		if s.info.Name != "" {
			fieldSel = fields.OneTermEqualSelector("metadata.name", s.info.Name).String()
		}
		lw := selectedListWatch(s.client(dyn), dyn, fieldSel, labelSel)
		exists := func(store cache.Store) (bool, error) { return len(store.List()) > 0, nil }
		_, err := watchtools.UntilWithSync(ctx, lw, &unstructured.Unstructured{}, exists, isAddedOrModified)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("timed out waiting for the condition")
			}
			return err
		}
	}
	return nil
}
