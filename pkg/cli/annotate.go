package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"
)

// changeCauseAnnotation may always be overwritten, even without --overwrite.
const changeCauseAnnotation = "kubernetes.io/change-cause"

// parseAnnotationArgs reads KEY=VALUE (VALUE may contain "=") and KEY-.
func parseAnnotationArgs(args []string) (map[string]string, []string, error) {
	set := map[string]string{}
	var remove, invalid []string
	for _, a := range args {
		switch {
		case strings.Contains(a, "=") && a[0] != '=':
			k, v, _ := strings.Cut(a, "=")
			set[k] = v
		case strings.HasSuffix(a, "-") && a != "-":
			remove = append(remove, a[:len(a)-1])
		default:
			invalid = append(invalid, a)
		}
	}
	if len(invalid) > 0 {
		return nil, nil, fmt.Errorf("invalid annotation format: %s", strings.Join(invalid, ", "))
	}
	var both []string
	for _, r := range remove {
		if _, ok := set[r]; ok {
			both = append(both, r)
		}
	}
	if len(both) > 0 {
		return nil, nil, fmt.Errorf("can not both modify and remove the following annotation(s) in the same command: %s", strings.Join(both, ", "))
	}
	return set, remove, nil
}

// applyAnnotations changes obj's annotations; without overwrite, changing
// an existing value (other than the change-cause) is an error.
func applyAnnotations(obj *unstructured.Unstructured, overwrite bool, set map[string]string, remove []string) error {
	current := obj.GetAnnotations()
	if !overwrite {
		var clashes []string
		for _, k := range sortedKeys(set) {
			if k == changeCauseAnnotation {
				continue
			}
			if v, ok := current[k]; ok && v != set[k] {
				clashes = append(clashes, fmt.Sprintf("'%s' already has a value (%s)", k, v))
			}
		}
		if len(clashes) > 0 {
			return fmt.Errorf("--overwrite is false but found the following declared annotation(s): %s", strings.Join(clashes, "; "))
		}
	}
	if current == nil {
		current = map[string]string{}
	}
	for k, v := range set {
		current[k] = v
	}
	for _, k := range remove {
		delete(current, k)
	}
	obj.SetAnnotations(current)
	return nil
}

func newAnnotateCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var t targetFlags
	var overwrite bool
	cmd := &cobra.Command{
		Use:   "annotate [--overwrite] (-f FILENAME | TYPE NAME) KEY_1=VAL_1 ... KEY_N=VAL_N",
		Short: "Update the annotations on a resource",
		RunE: func(cmd *cobra.Command, args []string) error {
			resources, set, remove, err := readChanges(args, "annotation", parseAnnotationArgs)
			if err != nil {
				return err
			}
			env, err := newWriteEnv(f, streams)
			if err != nil {
				return err
			}
			return env.annotate(cmd.Context(), t, resources, overwrite, set, remove)
		},
	}
	t.add(cmd, "identifying the resource to update the annotation")
	cmd.Flags().BoolVar(&overwrite, "overwrite", false, "If true, allow annotations to be overwritten, otherwise reject annotation updates that overwrite existing annotations.")
	return cmd
}

func (e *writeEnv) annotate(ctx context.Context, t targetFlags, resources []string, overwrite bool, set map[string]string, remove []string) error {
	_, err := e.eachLiveTarget(ctx, t, resources, func(client dynamic.ResourceInterface, info *objectInfo) error {
		before := info.Obj.DeepCopy()
		if err := applyAnnotations(info.Obj, overwrite, set, remove); err != nil {
			return err
		}
		if err := patchMetadata(ctx, client, info, before, "kubectl-annotate"); err != nil {
			return err
		}
		fmt.Fprintf(e.streams.Out, "%s annotated\n", info.kindName())
		return nil
	})
	return err
}
