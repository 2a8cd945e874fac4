package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"
)

// acceptScale is the Accept header of kubectl's scale client.
const acceptScale = "application/json, */*"

type scaleOptions struct {
	Replicas        int
	CurrentReplicas int
	ResourceVersion string
	Selector        string
	All             bool
	Timeout         time.Duration
	Output          string
	streams         genericiooptions.IOStreams
}

// preconditionError is kubectl's "Expected replicas to be 1, was 5".
type preconditionError struct{ what, expected, actual string }

func (e preconditionError) Error() string {
	return fmt.Sprintf("Expected %s to be %s, was %s", e.what, e.expected, e.actual)
}

func newScaleCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &scaleOptions{Replicas: -1, CurrentReplicas: -1, streams: streams}
	cmd := &cobra.Command{
		Use:   "scale [--resource-version=version] [--current-replicas=count] --replicas=COUNT (-f FILENAME | TYPE NAME)",
		Short: "Set a new size for a deployment or replica set",
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Replicas < 0 {
				return kubectlErrorf("The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0")
			}
			if o.CurrentReplicas < -1 {
				return kubectlErrorf("The --current-replicas must specify an integer of -1 or greater")
			}
			if o.Output != "" && o.Output != "name" {
				return noCompatiblePrinterError(o.Output, []string{"name"})
			}
			return o.run(cmd.Context(), f, args)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&o.Replicas, "replicas", -1, "The new desired number of replicas. Required.")
	_ = cmd.MarkFlagRequired("replicas")
	fl.IntVar(&o.CurrentReplicas, "current-replicas", -1, "Precondition for current size. Requires that the current size of the resource match this value in order to scale. -1 (default) for no condition.")
	fl.StringVar(&o.ResourceVersion, "resource-version", "", "Precondition for resource version. Requires that the current resource version match this value in order to scale.")
	fl.StringVarP(&o.Selector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.")
	fl.BoolVar(&o.All, "all", false, "Select all resources in the namespace of the specified resource types")
	fl.DurationVar(&o.Timeout, "timeout", 0, "The length of time to wait before giving up on a scale operation, zero means don't wait. Any other values should contain a corresponding time unit (e.g. 1s, 2m, 3h).")
	fl.StringVarP(&o.Output, "output", "o", "", "Output format. One of: (name).")
	return cmd
}

// scaleTarget is one object to scale.
type scaleTarget struct {
	ref  ResourceRef
	name string
}

func (o *scaleOptions) run(ctx context.Context, f *Factory, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("you must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'")
	}
	refs, err := f.ResolveArgs(args)
	if err != nil {
		return err
	}
	ns, _, err := f.Namespace()
	if err != nil {
		return err
	}
	c, err := f.RawClient()
	if err != nil {
		return err
	}
	targets, infoErr := o.targets(ctx, c, refs, ns)
	if o.ResourceVersion != "" && len(targets) > 1 {
		return fmt.Errorf("cannot use --resource-version with multiple resources")
	}
	if len(targets) == 0 {
		if infoErr != nil {
			return infoErr
		}
		return fmt.Errorf("no objects passed to scale")
	}
	for _, t := range targets {
		if err := o.scaleOne(ctx, c, t, ns); err != nil {
			return err
		}
		line := kindString(t.ref.Mapping.GroupVersionKind.GroupKind()) + "/" + t.name
		if o.Output != "name" {
			line += " scaled"
		}
		fmt.Fprintln(o.streams.Out, line)
	}
	return infoErr
}

// targets gets the named objects (GET each, as kubectl does) or lists
// those matching -l / --all.
func (o *scaleOptions) targets(ctx context.Context, c rest.Interface, refs []ResourceRef, ns string) ([]scaleTarget, error) {
	var out []scaleTarget
	var errs []error
	for _, ref := range refs {
		if ref.Name != "" {
			if _, err := getRaw(ctx, c, ResourcePath(ref.Mapping, ns, ref.Name), acceptJSON, listQuery{}); err != nil {
				errs = append(errs, err)
				continue
			}
			out = append(out, scaleTarget{ref: ref, name: ref.Name})
			continue
		}
		if o.Selector == "" && !o.All {
			return nil, fmt.Errorf("resource(s) were provided, but no name was specified")
		}
		body, err := getRaw(ctx, c, ResourcePath(ref.Mapping, ns, ""), acceptJSON, listQuery{LabelSelector: o.Selector})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		list, err := decodeObject(body)
		if err != nil {
			return nil, err
		}
		items, _ := listItems(list)
		for _, it := range items {
			out = append(out, scaleTarget{ref: ref, name: metaString(it, "name")})
		}
	}
	return out, utilerrors.NewAggregate(errs)
}

// scaleOne patches the scale subresource, or, with a precondition, reads
// it, checks the precondition on the client and writes it back (retrying
// on conflicts, as kubectl does); then waits if --timeout is set.
func (o *scaleOptions) scaleOne(ctx context.Context, c rest.Interface, t scaleTarget, ns string) error {
	path := ResourcePath(t.ref.Mapping, ns, t.name) + "/scale"
	cond := func(ctx context.Context) (bool, error) {
		err := o.scaleOnce(ctx, c, path)
		if apierrors.IsConflict(err) {
			return false, nil
		}
		return err == nil, err
	}
	if err := wait.PollUntilContextTimeout(ctx, time.Second, 5*time.Minute, true, cond); err != nil {
		return err
	}
	if o.Timeout == 0 {
		return nil
	}
	err := wait.PollUntilContextTimeout(ctx, time.Second, o.Timeout, true, func(ctx context.Context) (bool, error) {
		s, err := getScale(ctx, c, path)
		if err != nil {
			return false, err
		}
		if s.Spec.Replicas != int32(o.Replicas) {
			return true, nil // someone else changed the target
		}
		return s.Status.Replicas == s.Spec.Replicas, nil
	})
	if wait.Interrupted(err) {
		return fmt.Errorf("timed out waiting for %q to be synced", t.name)
	}
	return err
}

func (o *scaleOptions) scaleOnce(ctx context.Context, c rest.Interface, path string) error {
	if o.CurrentReplicas == -1 && o.ResourceVersion == "" {
		patch := fmt.Sprintf(`{"spec":{"replicas":%d}}`, o.Replicas)
		_, err := doRaw(ctx, c.Patch(types.MergePatchType).AbsPath(path).SetHeader("Accept", acceptScale).
			Body([]byte(patch)))
		return err
	}
	s, err := getScale(ctx, c, path)
	if err != nil {
		return err
	}
	if o.CurrentReplicas != -1 && int(s.Spec.Replicas) != o.CurrentReplicas {
		return preconditionError{"replicas", strconv.Itoa(o.CurrentReplicas), strconv.Itoa(int(s.Spec.Replicas))}
	}
	if o.ResourceVersion != "" && s.ResourceVersion != o.ResourceVersion {
		return preconditionError{"resource version", o.ResourceVersion, s.ResourceVersion}
	}
	s.Spec.Replicas = int32(o.Replicas)
	body, err := json.Marshal(s)
	if err != nil {
		return err
	}
	_, err = doRaw(ctx, c.Put().AbsPath(path).SetHeader("Accept", acceptScale).SetHeader("Content-Type", "application/json").
		Body(body))
	return err
}

func getScale(ctx context.Context, c rest.Interface, path string) (*autoscalingv1.Scale, error) {
	body, err := doRaw(ctx, c.Get().AbsPath(path).SetHeader("Accept", acceptScale))
	if err != nil {
		return nil, err
	}
	s := &autoscalingv1.Scale{}
	if err := json.Unmarshal(body, s); err != nil {
		return nil, err
	}
	return s, nil
}
