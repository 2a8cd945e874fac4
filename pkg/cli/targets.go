package cli

// Selecting the objects label, annotate, patch and rollout act on, and
// fetching each one live from the server.

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/dynamic"
)

// errNoResources is kubectl's answer to a command given neither resource
// arguments nor -f.
//
//lint:ignore ST1005 kubectl's exact wording
var errNoResources = errors.New("You must provide one or more resources by argument or filename.\n" +
	"Example resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'")

// targetFlags select objects the way label, annotate and rollout do:
// TYPE NAME..., TYPE/NAME..., TYPE -l SELECTOR, TYPE --all, or -f.
type targetFlags struct {
	files         fileFlags
	selector      string
	all           bool
	allNamespaces bool
}

func (t *targetFlags) add(cmd *cobra.Command, what string) {
	t.files.add(cmd, what)
	cmd.Flags().StringVarP(&t.selector, "selector", "l", "", "Selector (label query) to filter on.")
	cmd.Flags().BoolVar(&t.all, "all", false, "Select all resources, in the namespace of the specified resource types.")
	cmd.Flags().BoolVarP(&t.allNamespaces, "all-namespaces", "A", false, "If true, check the specified action in all namespaces.")
}

// liveTargets resolves the selection and GETs (or lists) each object, so
// that every returned info carries the live object.
func (e *writeEnv) liveTargets(ctx context.Context, t targetFlags, args []string) ([]*objectInfo, error) {
	dyn, err := e.f.Dynamic()
	if err != nil {
		return nil, err
	}
	if len(t.files.Filenames) > 0 {
		infos, errs, err := e.readInfos(t.files)
		if err != nil {
			return nil, err
		}
		for _, info := range infos {
			if err := fetchLive(ctx, dyn, info); err != nil {
				errs = append(errs, err)
			}
		}
		return infos, utilerrors.NewAggregate(errs)
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("one or more resources must be specified as <resource> <name> or <resource>/<name>")
	}
	refs, err := e.f.ResolveArgs(args)
	if err != nil {
		return nil, err
	}
	var infos []*objectInfo
	var errs []error
	for _, r := range refs {
		if r.Name == "" {
			if t.selector == "" && !t.all {
				return nil, fmt.Errorf("resource(s) were provided, but no name was specified")
			}
			listed, err := e.listTargets(ctx, r, &deleteOptions{selector: t.selector, allNamespaces: t.allNamespaces})
			if err != nil {
				return nil, err
			}
			infos = append(infos, listed...)
			continue
		}
		info := e.refInfo(r, r.Name, e.target.Namespace)
		if err := fetchLive(ctx, dyn, info); err != nil {
			errs = append(errs, err)
			continue
		}
		infos = append(infos, info)
	}
	for _, info := range infos {
		if info.Obj == nil {
			if err := fetchLive(ctx, dyn, info); err != nil {
				return nil, err
			}
		}
	}
	if len(errs) == 1 {
		return infos, errs[0]
	}
	return infos, utilerrors.NewAggregate(errs)
}

// fetchLive sets info.Obj to the object as the server has it now.
func fetchLive(ctx context.Context, dyn dynamic.Interface, info *objectInfo) error {
	live, err := info.client(dyn).Get(ctx, info.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	info.Obj = live
	return nil
}

// eachLiveTarget runs do on every object liveTargets selects, with the
// client for its resource. Like kubectl, a failure on one object does not
// stop the others: all failures come back together at the end. visited is
// how many objects were selected.
func (e *writeEnv) eachLiveTarget(ctx context.Context, t targetFlags, args []string,
	do func(client dynamic.ResourceInterface, info *objectInfo) error) (visited int, err error) {
	infos, err := e.liveTargets(ctx, t, args)
	if err != nil && len(infos) == 0 {
		return 0, err
	}
	errs := []error{}
	if err != nil {
		errs = append(errs, err)
	}
	dyn, err := e.f.Dynamic()
	if err != nil {
		return 0, err
	}
	for _, info := range infos {
		if err := do(info.client(dyn), info); err != nil {
			errs = append(errs, err)
		}
	}
	return len(infos), utilerrors.NewAggregate(errs)
}

// errLocalResource is kubectl's error for TYPE NAME arguments with --local.
var errLocalResource = kubectlError("error: you must specify resources by --filename when --local is set.\n" +
	"Example resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'")
