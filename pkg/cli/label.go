package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"
)

// splitPairs separates leading resource arguments from KEY=VALUE and KEY-
// arguments, which kubectl requires to come last.
func splitPairs(args []string, kind string) (resources, pairs []string, err error) {
	first := true
	for _, a := range args {
		isPair := strings.Contains(a, "=") || (strings.HasSuffix(a, "-") && a != "-")
		switch {
		case isPair:
			first = false
			pairs = append(pairs, a)
		case first:
			resources = append(resources, a)
		default:
			return nil, nil, fmt.Errorf("all resources must be specified before %s changes: %s", kind, a)
		}
	}
	return resources, pairs, nil
}

// readChanges splits label or annotate arguments into the resources and
// the keys to set and remove; parse reads the KEY=VALUE and KEY- pairs.
func readChanges(args []string, kind string, parse func([]string) (map[string]string, []string, error)) (resources []string, set map[string]string, remove []string, err error) {
	resources, pairs, err := splitPairs(args, kind)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(pairs) == 0 {
		return nil, nil, nil, fmt.Errorf("at least one %s update is required", kind)
	}
	set, remove, err = parse(pairs)
	return resources, set, remove, err
}

// parseLabelArgs reads label arguments (k=v to set, k- to remove) and checks
// values as kubectl does.
func parseLabelArgs(spec []string) (map[string]string, []string, error) {
	labels := map[string]string{}
	var remove []string
	for _, s := range spec {
		switch {
		case strings.Contains(s, "="):
			parts := strings.Split(s, "=")
			if len(parts) != 2 {
				return nil, nil, fmt.Errorf("invalid label spec: %v", s)
			}
			if errs := validation.IsValidLabelValue(parts[1]); len(errs) != 0 {
				return nil, nil, fmt.Errorf("invalid label value: %q: %s", s, strings.Join(errs, ";"))
			}
			labels[parts[0]] = parts[1]
		case strings.HasSuffix(s, "-"):
			remove = append(remove, s[:len(s)-1])
		default:
			return nil, nil, fmt.Errorf("unknown label spec: %v", s)
		}
	}
	for _, r := range remove {
		if _, ok := labels[r]; ok {
			return nil, nil, fmt.Errorf("can not both modify and remove a label in the same command")
		}
	}
	return labels, remove, nil
}

// applyLabels changes obj's labels and reports which keys really changed;
// without overwrite, changing an existing value is an error.
func applyLabels(obj *unstructured.Unstructured, overwrite bool, set map[string]string, remove []string) (added, removed []string, err error) {
	current := obj.GetLabels()
	if !overwrite {
		var errs []error
		for _, k := range sortedKeys(set) {
			if v, ok := current[k]; ok && v != set[k] {
				errs = append(errs, fmt.Errorf("'%s' already has a value (%s), and --overwrite is false", k, v))
			}
		}
		if len(errs) > 0 {
			return nil, nil, utilerrors.NewAggregate(errs)
		}
	}
	if current == nil {
		current = map[string]string{}
	}
	for _, k := range sortedKeys(set) {
		if v, ok := current[k]; !ok || v != set[k] {
			current[k] = set[k]
			added = append(added, k)
		}
	}
	for _, k := range remove {
		if _, ok := current[k]; ok {
			delete(current, k)
			removed = append(removed, k)
		}
	}
	obj.SetLabels(current)
	return added, removed, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// labelOutcome is kubectl's word for what a label command did.
func labelOutcome(added, removed []string) string {
	switch {
	case len(added) > 0 && len(removed) > 0:
		return "modified"
	case len(added) > 0:
		return "labeled"
	case len(removed) > 0:
		return "unlabeled"
	}
	return "not labeled"
}

// metadataMergePatch is the JSON merge patch between two versions of an
// object, as label and annotate send it.
func metadataMergePatch(before, after *unstructured.Unstructured) ([]byte, error) {
	a, err := json.Marshal(before.Object)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(after.Object)
	if err != nil {
		return nil, err
	}
	return jsonpatch.CreateMergePatch(a, b)
}

// patchMetadata sends the change from before to info.Obj as a merge
// patch, as label and annotate do.
func patchMetadata(ctx context.Context, client dynamic.ResourceInterface, info *objectInfo, before *unstructured.Unstructured, fieldManager string) error {
	patch, err := metadataMergePatch(before, info.Obj)
	if err != nil {
		return err
	}
	_, err = client.Patch(ctx, info.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: fieldManager})
	return err
}

func newLabelCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var t targetFlags
	var overwrite bool
	cmd := &cobra.Command{
		Use:   "label [--overwrite] (-f FILENAME | TYPE NAME) KEY_1=VAL_1 ... KEY_N=VAL_N",
		Short: "Update the labels on a resource",
		RunE: func(cmd *cobra.Command, args []string) error {
			resources, set, remove, err := readChanges(args, "label", parseLabelArgs)
			if err != nil {
				return err
			}
			env, err := newWriteEnv(f, streams)
			if err != nil {
				return err
			}
			return env.label(cmd.Context(), t, resources, overwrite, set, remove)
		},
	}
	t.add(cmd, "identifying the resource to update the labels")
	cmd.Flags().BoolVar(&overwrite, "overwrite", false, "If true, allow labels to be overwritten, otherwise reject label updates that overwrite existing labels.")
	return cmd
}

func (e *writeEnv) label(ctx context.Context, t targetFlags, resources []string, overwrite bool, set map[string]string, remove []string) error {
	_, err := e.eachLiveTarget(ctx, t, resources, func(client dynamic.ResourceInterface, info *objectInfo) error {
		before := info.Obj.DeepCopy()
		for _, k := range remove {
			if _, ok := before.GetLabels()[k]; !ok {
				fmt.Fprintf(e.streams.Out, "label %q not found.\n", k)
			}
		}
		added, removed, err := applyLabels(info.Obj, overwrite, set, remove)
		if err != nil {
			return err
		}
		if len(added)+len(removed) > 0 {
			if err := patchMetadata(ctx, client, info, before, "kubectl-label"); err != nil {
				return err
			}
		}
		fmt.Fprintf(e.streams.Out, "%s %s\n", info.kindName(), labelOutcome(added, removed))
		return nil
	})
	return err
}
