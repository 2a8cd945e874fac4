package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// deleteOptions are kubectl delete's flags.
type deleteOptions struct {
	files          fileFlags
	selector       string
	all            bool
	allNamespaces  bool
	cascade        string
	gracePeriod    int
	now            bool
	force          bool
	wait           bool
	ignoreNotFound bool
	timeout        time.Duration
}

func newDeleteCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &deleteOptions{}
	cmd := &cobra.Command{
		Use:   "delete ([-f FILENAME] | TYPE [(NAME | -l label | --all)])",
		Short: "Delete resources by file names, stdin, resources and names, or by resources and label selector",
		RunE: func(cmd *cobra.Command, args []string) error {
			env, err := newWriteEnv(f, streams)
			if err != nil {
				return err
			}
			return env.delete(cmd.Context(), o, args)
		},
	}
	o.files.add(cmd, "containing the resource to delete")
	fl := cmd.Flags()
	fl.StringVarP(&o.selector, "selector", "l", "", "Selector (label query) to filter on.")
	fl.BoolVar(&o.all, "all", false, "Delete all resources, in the namespace of the specified resource types.")
	fl.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "If present, list the requested object(s) across all namespaces.")
	fl.StringVar(&o.cascade, "cascade", "background", `Must be "background", "orphan", or "foreground".`)
	fl.Lookup("cascade").NoOptDefVal = "background"
	fl.IntVar(&o.gracePeriod, "grace-period", -1, "Period of time in seconds given to the resource to terminate gracefully.")
	fl.BoolVar(&o.now, "now", false, "If true, resources are signaled for immediate shutdown (same as --grace-period=1).")
	fl.BoolVar(&o.force, "force", false, "If true, immediately remove resources from API and bypass graceful deletion.")
	fl.BoolVar(&o.wait, "wait", true, "If true, wait for resources to be gone before returning.")
	fl.BoolVar(&o.ignoreNotFound, "ignore-not-found", false, "Treat \"resource not found\" as a successful delete.")
	fl.DurationVar(&o.timeout, "timeout", 0, "The length of time to wait before giving up on a delete, zero means determine a timeout from the size of the object")
	return cmd
}

// propagationPolicy maps --cascade to the API's DeletionPropagation.
func propagationPolicy(cascade string) (metav1.DeletionPropagation, error) {
	switch cascade {
	case "background", "true":
		return metav1.DeletePropagationBackground, nil
	case "foreground":
		return metav1.DeletePropagationForeground, nil
	case "orphan", "false":
		return metav1.DeletePropagationOrphan, nil
	}
	return "", fmt.Errorf("invalid cascade value (%v). Must be \"background\", \"foreground\", or \"orphan\"", cascade)
}

func (o *deleteOptions) deleteOptions() (metav1.DeleteOptions, error) {
	policy, err := propagationPolicy(o.cascade)
	if err != nil {
		return metav1.DeleteOptions{}, err
	}
	grace := o.gracePeriod
	switch {
	case o.now && grace >= 0:
		return metav1.DeleteOptions{}, fmt.Errorf("--now and --grace-period cannot be specified together")
	case o.now:
		grace = 1
	case o.force && grace < 0:
		grace = 0
	}
	opts := metav1.DeleteOptions{PropagationPolicy: &policy}
	if grace >= 0 {
		g := int64(grace)
		opts.GracePeriodSeconds = &g
	}
	return opts, nil
}

func (e *writeEnv) delete(ctx context.Context, o *deleteOptions, args []string) error {
	opts, err := o.deleteOptions()
	if err != nil {
		return err
	}
	infos, errs, err := e.deleteTargets(ctx, o, args)
	if err != nil {
		return err
	}
	dyn, err := e.f.Dynamic()
	if err != nil {
		return err
	}
	raw, err := e.f.RawClient()
	if err != nil {
		return err
	}
	warnClusterScope := e.target.Enforce && !o.allNamespaces
	var deleted []*objectInfo
	found := 0
	uids := map[*objectInfo]types.UID{}
	for _, info := range infos {
		if warnClusterScope && !info.namespaced() {
			fmt.Fprintln(e.streams.ErrOut, "Warning: deleting cluster-scoped resources, not scoped to the provided namespace")
			warnClusterScope = false
		}
		// Like kubectl, an object counts as found once it is asked for, so
		// an ignored NotFound does not print "No resources found".
		found++
		uid, err := deleteObject(ctx, raw, info, opts)
		if err != nil {
			if o.ignoreNotFound && apierrors.IsNotFound(err) {
				continue
			}
			errs = append(errs, addSourceToErr("deleting", info.Source, err))
			continue
		}
		fmt.Fprintln(e.streams.Out, deletedMessage(info, opts.GracePeriodSeconds))
		deleted = append(deleted, info)
		uids[info] = uid
	}
	if len(errs) > 0 {
		return utilerrors.NewAggregate(errs)
	}
	if found == 0 {
		fmt.Fprintln(e.streams.Out, "No resources found")
		return nil
	}
	if !o.wait {
		return nil
	}
	return waitDeleted(ctx, dyn, deleted, uids, o.timeout)
}

// deletedMessage is kubectl's `deployment.apps "web" deleted from default namespace`.
func deletedMessage(info *objectInfo, grace *int64) string {
	op := "deleted"
	if grace != nil && *grace == 0 {
		op = "force deleted"
	}
	if info.namespaced() {
		op = fmt.Sprintf("%s from %s namespace", op, info.Namespace)
	}
	return fmt.Sprintf("%s %q %s", kindString(info.Mapping.GroupVersionKind.GroupKind()), info.Name, op)
}

// deleteObject sends the DELETE and returns the uid of the object it
// deleted, read from the response as kubectl does, so that the wait is not
// misled by a namesake created at once (the ServiceAccount controller
// recreates "default" within milliseconds). A Status answer carries the
// uid in its details; without one, the wait learns it from its first GET.
func deleteObject(ctx context.Context, raw rest.Interface, info *objectInfo, opts metav1.DeleteOptions) (types.UID, error) {
	opts.TypeMeta = metav1.TypeMeta{Kind: "DeleteOptions", APIVersion: "meta.k8s.io/v1"}
	body, err := json.Marshal(opts)
	if err != nil {
		return "", err
	}
	req := raw.Delete().AbsPath(ResourcePath(info.Mapping, info.Namespace, info.Name)).
		SetHeader("Content-Type", "application/json").Body(body)
	resp, err := doRaw(ctx, req)
	if err != nil {
		return "", err
	}
	obj, err := decodeObject(resp)
	if err != nil {
		return "", nil
	}
	from := "metadata"
	if obj["kind"] == "Status" {
		from = "details"
	}
	md, _ := obj[from].(map[string]any)
	uid, _ := md["uid"].(string)
	return types.UID(uid), nil
}

// deleteTargets collects what to delete from -f, from TYPE NAME arguments or
// from TYPE with -l/--all (listing the matches first, as kubectl does).
func (e *writeEnv) deleteTargets(ctx context.Context, o *deleteOptions, args []string) ([]*objectInfo, []error, error) {
	if len(o.files.Filenames) > 0 {
		if len(args) > 0 {
			return nil, nil, fmt.Errorf("cannot specify both file names and resource arguments")
		}
		return e.readInfos(o.files)
	}
	if len(args) == 0 {
		return nil, nil, errNoResources
	}
	refs, err := e.f.ResolveArgs(args)
	if err != nil {
		return nil, nil, err
	}
	var infos []*objectInfo
	for _, r := range refs {
		if r.Name != "" {
			if o.selector != "" || o.all {
				return nil, nil, fmt.Errorf("name cannot be provided when a selector is specified")
			}
			infos = append(infos, e.refInfo(r, r.Name, e.target.Namespace))
			continue
		}
		if o.selector == "" && !o.all {
			return nil, nil, fmt.Errorf("resource(s) were provided, but no name was specified")
		}
		listed, err := e.listTargets(ctx, r, o)
		if err != nil {
			return nil, nil, err
		}
		infos = append(infos, listed...)
	}
	return infos, nil, nil
}

func (e *writeEnv) refInfo(r ResourceRef, name, namespace string) *objectInfo {
	info := &objectInfo{Mapping: r.Mapping, Name: name}
	if r.Namespaced() {
		info.Namespace = namespace
	}
	return info
}

func (e *writeEnv) listTargets(ctx context.Context, r ResourceRef, o *deleteOptions) ([]*objectInfo, error) {
	dyn, err := e.f.Dynamic()
	if err != nil {
		return nil, err
	}
	var res dynamic.ResourceInterface = dyn.Resource(r.Mapping.Resource)
	if r.Namespaced() && !o.allNamespaces {
		res = dyn.Resource(r.Mapping.Resource).Namespace(e.target.Namespace)
	}
	list, err := res.List(ctx, metav1.ListOptions{LabelSelector: o.selector})
	if err != nil {
		return nil, err
	}
	var infos []*objectInfo
	for i := range list.Items {
		it := &list.Items[i]
		infos = append(infos, e.refInfo(r, it.GetName(), it.GetNamespace()))
	}
	return infos, nil
}

// waitDeleted blocks until every deleted object is gone (or replaced by a
// new object with another uid), like kubectl delete's default --wait: a GET
// first, then a watch on the one name while it still exists.
func waitDeleted(ctx context.Context, dyn dynamic.Interface, infos []*objectInfo, uids map[*objectInfo]types.UID, timeout time.Duration) error {
	if timeout == 0 {
		timeout = 168 * time.Hour
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for _, info := range infos {
		if err := waitOneDeleted(ctx, dyn, info, uids[info]); err != nil {
			return err
		}
	}
	return nil
}

func waitOneDeleted(ctx context.Context, dyn dynamic.Interface, info *objectInfo, uid types.UID) error {
	res := info.client(dyn)
	for {
		obj, err := res.Get(ctx, info.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return waitTimeoutError(info)
			}
			return err
		}
		if uid != "" && obj.GetUID() != uid {
			return nil
		}
		uid = obj.GetUID()
		gone, err := watchUntilDeleted(ctx, res, info.Name, uid)
		if gone {
			return nil
		}
		if ctx.Err() != nil {
			return waitTimeoutError(info)
		}
		if err != nil && !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
			return err
		}
	}
}

func waitTimeoutError(info *objectInfo) error {
	return fmt.Errorf("timed out waiting for the condition on %s/%s", info.Mapping.Resource.Resource, info.Name)
}

// watchUntilDeleted watches one object by name (WatchList: the current state
// first, then changes) and reports whether it is gone: a DELETED event for
// uid, or an initial state that no longer holds it (it went between the GET
// and the watch). The watch is bounded so that a quiet stream is re-checked.
func watchUntilDeleted(ctx context.Context, res dynamic.ResourceInterface, name string, uid types.UID) (bool, error) {
	sendInitial := true
	timeout := int64(60)
	w, err := res.Watch(ctx, metav1.ListOptions{
		FieldSelector:        fields.OneTermEqualSelector("metadata.name", name).String(),
		AllowWatchBookmarks:  true,
		SendInitialEvents:    &sendInitial,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		TimeoutSeconds:       &timeout,
	})
	if err != nil {
		return false, err
	}
	defer w.Stop()
	seen := false
	for {
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case ev, ok := <-w.ResultChan():
			if !ok {
				return false, nil
			}
			m, isObj := ev.Object.(metav1.Object)
			switch ev.Type {
			case watch.Added, watch.Modified:
				if isObj && m.GetUID() == uid {
					seen = true
				}
			case watch.Deleted:
				if !isObj || m.GetUID() == uid {
					return true, nil
				}
			case watch.Bookmark:
				if isObj && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" && !seen {
					return true, nil
				}
			case watch.Error:
				return false, apierrors.FromObject(ev.Object)
			}
		}
	}
}
