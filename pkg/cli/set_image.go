package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes/scheme"
)

// setImageOptions are the flags of `set image`.
type setImageOptions struct {
	files       fileFlags
	selector    string
	all         bool
	local       bool
	g           generatorFlags // -o, --show-managed-fields, --dry-run, --field-manager
	record      bool
	changeCause string
}

func newSetImageCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &setImageOptions{}
	cmd := &cobra.Command{
		Use:   "image (-f FILENAME | TYPE NAME) CONTAINER_NAME_1=CONTAINER_IMAGE_1 ... CONTAINER_NAME_N=CONTAINER_IMAGE_N",
		Short: "Update the image of a pod template",
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("record") {
				fmt.Fprintln(streams.ErrOut, "Flag --record has been deprecated, --record will be removed in the future")
			}
			if o.record {
				o.changeCause = recordChangeCause(cmd)
			}
			return o.run(cmd.Context(), f, streams, args)
		},
	}
	fl := cmd.Flags()
	o.g.addOutput(cmd)
	o.files.add(cmd, "identifying the resource to get from a server.")
	fl.BoolVar(&o.all, "all", false, "Select all resources, in the namespace of the specified resource types")
	fl.BoolVar(&o.local, "local", false, "If true, set image will NOT contact api-server but run locally.")
	o.g.addDryRun(cmd)
	o.g.addFieldManager(cmd, fieldManagerSet)
	fl.StringVarP(&o.selector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.(e.g. -l key1=value1,key2=value2,key3 in (value3)). Matching objects must satisfy all of the specified label constraints.")
	fl.BoolVar(&o.record, "record", false, "Record current kubectl command in the resource annotation. If set to false, do not record the command. If set to true, record the command. If not set, default to updating the existing annotation value only if one already exists.")
	// Deprecated, as in kubectl; the warning is printed in RunE, since
	// cobra would print pflag's to the command's stdout.
	fl.Lookup("record").Hidden = true
	return cmd
}

// run follows kubectl's order: --dry-run, -o, the arguments, the objects
// (all fetched before anything is changed), then the checks of Validate.
func (o *setImageOptions) run(ctx context.Context, f *Factory, streams genericiooptions.IOStreams, args []string) error {
	mode, err := o.g.complete(streams.ErrOut)
	if err != nil {
		return err
	}
	resources, pairs, err := splitPairs(args, "image")
	if err != nil {
		return err
	}
	images, err := parseImagePairs(pairs)
	if err != nil {
		return err
	}
	env, err := newWriteEnv(f, streams)
	if err != nil {
		return err
	}
	infos, err := o.targets(ctx, env, resources)
	if err != nil {
		return err
	}
	if err := o.validate(resources, images, mode); err != nil {
		return err
	}
	return o.update(ctx, env, infos, images, mode)
}

// targets finds the objects to change: from -f (live unless --local), or
// from TYPE NAME, TYPE/NAME, TYPE -l or TYPE --all.
func (o *setImageOptions) targets(ctx context.Context, env *writeEnv, resources []string) ([]*objectInfo, error) {
	if o.local {
		if len(resources) > 0 {
			return nil, errLocalResource
		}
		infos, errs, err := env.readInfos(o.files)
		if err == nil {
			err = utilerrors.NewAggregate(errs)
		}
		return infos, err
	}
	if len(resources) == 0 && len(o.files.Filenames) == 0 {
		return nil, errNoResources
	}
	t := targetFlags{files: o.files, selector: o.selector, all: o.all}
	return env.liveTargets(ctx, t, resources)
}

func (o *setImageOptions) validate(resources []string, images map[string]string, mode dryRunMode) error {
	var errs []error
	if o.all && o.selector != "" {
		errs = append(errs, fmt.Errorf("cannot set --all and --selector at the same time"))
	}
	if len(resources) == 0 && len(o.files.Filenames) == 0 {
		errs = append(errs, fmt.Errorf("one or more resources must be specified as <resource> <name> or <resource>/<name>"))
	}
	_, wildcard := images["*"]
	switch {
	case len(images) == 0:
		errs = append(errs, fmt.Errorf("at least one image update is required"))
	case len(images) > 1 && wildcard:
		errs = append(errs, fmt.Errorf("all containers are already specified by *, but saw more than one container_name=container_image pairs"))
	}
	if o.local && mode == dryRunServer {
		errs = append(errs, fmt.Errorf("cannot specify --local and --dry-run=server - did you mean --dry-run=client?"))
	}
	return utilerrors.NewAggregate(errs)
}

// update changes every object and sends each change as a strategic merge
// patch. As in kubectl, a missing container is reported after the other
// objects were handled, and an object that did not change is skipped
// silently.
func (o *setImageOptions) update(ctx context.Context, env *writeEnv, infos []*objectInfo, images map[string]string, mode dryRunMode) error {
	type change struct {
		info  *objectInfo
		obj   runtime.Object
		patch []byte
		err   error
	}
	var errs []error
	var changes []change
	for _, info := range infos {
		obj, patch, missing, err := imagePatch(info.Obj, images, o.changeCause)
		errs = append(errs, missing...)
		if err == nil && (string(patch) == "{}" || len(patch) == 0) {
			continue
		}
		changes = append(changes, change{info, obj, patch, err})
	}
	dyn, err := env.f.Dynamic()
	if err != nil {
		return err
	}
	for _, c := range changes {
		if c.err != nil {
			//lint:ignore ST1005 kubectl's exact text, trailing line break included
			errs = append(errs, fmt.Errorf("error: %s %v\n", o.objectName(c.info), c.err))
			continue
		}
		gvk := c.info.Mapping.GroupVersionKind
		if o.local || mode == dryRunClient {
			if err := o.g.printDone(env.streams.Out, "image updated", mode, gvk, c.obj.(metav1.Object)); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		opts := metav1.PatchOptions{FieldManager: o.g.FieldManager}
		if mode == dryRunServer {
			opts.DryRun = []string{metav1.DryRunAll}
		}
		patched, err := c.info.client(dyn).Patch(ctx, c.info.Name, types.StrategicMergePatchType, c.patch, opts)
		if err != nil {
			errs = append(errs, fmt.Errorf("failed to patch image update to pod template: %v", err))
			continue
		}
		typed, err := typedObject(patched)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := o.g.printDone(env.streams.Out, "image updated", mode, gvk, typed.(metav1.Object)); err != nil {
			errs = append(errs, err)
		}
	}
	return utilerrors.NewAggregate(errs)
}

// objectName is how kubectl names an object in set image's errors:
// "services/web" from the server, "service/web" from a --local file.
func (o *setImageOptions) objectName(info *objectInfo) string {
	if !o.local {
		return info.Mapping.Resource.Resource + "/" + info.Name
	}
	gk := info.Mapping.GroupVersionKind.GroupKind()
	if gk.Group == "" {
		return strings.ToLower(gk.Kind) + "/" + info.Name
	}
	// kubectl's own text has this line break.
	return strings.ToLower(gk.Kind) + "." + gk.Group + "/" + info.Name + "\n"
}

// imagePatch sets the images on a copy of obj (as its typed Go object,
// which kubectl's patch is computed from) and returns the changed object,
// the strategic merge patch, and one error per container name not found.
// A changeCause (--record) goes into the kubernetes.io/change-cause
// annotation.
func imagePatch(u *unstructured.Unstructured, images map[string]string, changeCause string) (runtime.Object, []byte, []error, error) {
	obj, err := typedObject(u)
	if err != nil {
		return nil, nil, nil, err
	}
	before, err := json.Marshal(obj)
	if err != nil {
		return nil, nil, nil, err
	}
	spec, err := podSpecOf(obj)
	if err != nil {
		return nil, nil, nil, err
	}
	var missing []error
	for name, image := range images {
		inInit := setContainerImage(spec.InitContainers, name, image)
		inMain := setContainerImage(spec.Containers, name, image)
		if !inInit && !inMain {
			missing = append(missing, fmt.Errorf("error: unable to find container named %q", name))
		}
	}
	if changeCause != "" {
		if m, ok := obj.(metav1.Object); ok {
			a := m.GetAnnotations()
			if a == nil {
				a = map[string]string{}
			}
			a[changeCauseAnnotation] = changeCause
			m.SetAnnotations(a)
		}
	}
	after, err := json.Marshal(obj)
	if err != nil {
		return nil, nil, nil, err
	}
	patch, err := strategicpatch.CreateTwoWayMergePatch(before, after, obj)
	return obj, patch, missing, err
}

// typedObject converts an object to its client-go Go type, or leaves it
// unstructured when client-go has no type for its kind.
func typedObject(u *unstructured.Unstructured) (runtime.Object, error) {
	obj, err := scheme.Scheme.New(u.GroupVersionKind())
	if err != nil {
		return u.DeepCopy(), nil
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// podSpecOf finds the pod spec that set image changes in the kinds kubectl
// knows: the pod's own, or that of the pod template.
func podSpecOf(obj runtime.Object) (*corev1.PodSpec, error) {
	if t := podTemplateOf(obj); t != nil {
		return &t.Spec, nil
	}
	if p, ok := obj.(*corev1.Pod); ok {
		return &p.Spec, nil
	}
	return nil, fmt.Errorf("the object is not a pod or does not have a pod template: %T", obj)
}

// setContainerImage sets image on the containers called name ("*": all)
// and reports whether there was one.
func setContainerImage(containers []corev1.Container, name, image string) bool {
	found := false
	for i := range containers {
		if containers[i].Name == name || name == "*" {
			containers[i].Image = image
			found = true
		}
	}
	return found
}

// parseImagePairs reads CONTAINER=IMAGE arguments; kubectl lists every
// malformed one in a single error.
func parseImagePairs(pairs []string) (map[string]string, error) {
	images := map[string]string{}
	var invalid []string
	for _, p := range pairs {
		name, image, ok := strings.Cut(p, "=")
		if !ok || name == "" {
			invalid = append(invalid, p)
			continue
		}
		images[name] = image
	}
	if len(invalid) > 0 {
		return nil, fmt.Errorf("invalid image format: %s", strings.Join(invalid, ", "))
	}
	return images, nil
}
