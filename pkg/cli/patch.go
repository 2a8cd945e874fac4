package cli

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"
)

// patchTypes are kubectl patch's --type values.
var patchTypes = map[string]types.PatchType{
	"json":      types.JSONPatchType,
	"merge":     types.MergePatchType,
	"strategic": types.StrategicMergePatchType,
}

type patchOptions struct {
	targets   targetFlags
	patch     string
	patchFile string
	patchType string
}

func newPatchCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &patchOptions{}
	cmd := &cobra.Command{
		Use:   "patch (-f FILENAME | TYPE NAME) [-p PATCH|--patch-file FILE]",
		Short: "Update fields of a resource",
		RunE: func(cmd *cobra.Command, args []string) error {
			pt, body, err := o.parse()
			if err != nil {
				return err
			}
			env, err := newWriteEnv(f, streams)
			if err != nil {
				return err
			}
			return env.patch(cmd.Context(), o.targets, args, pt, body)
		},
	}
	o.targets.files.add(cmd, "identifying the resource to update")
	cmd.Flags().StringVarP(&o.patch, "patch", "p", "", "The patch to be applied to the resource JSON file.")
	cmd.Flags().StringVar(&o.patchFile, "patch-file", "", "A file containing a patch to be applied to the resource.")
	cmd.Flags().StringVar(&o.patchType, "type", "strategic", "The type of patch being provided; one of [json merge strategic]")
	return cmd
}

// parse checks the flags and turns the patch (JSON or YAML) into JSON.
func (o *patchOptions) parse() (types.PatchType, []byte, error) {
	if o.patch != "" && o.patchFile != "" {
		return "", nil, fmt.Errorf("cannot specify --patch and --patch-file together")
	}
	if o.patch == "" && o.patchFile == "" {
		return "", nil, fmt.Errorf("must specify --patch or --patch-file containing the contents of the patch")
	}
	pt, ok := patchTypes[strings.ToLower(o.patchType)]
	if !ok {
		return "", nil, fmt.Errorf("--type must be one of [json merge strategic], not %q", o.patchType)
	}
	body := []byte(o.patch)
	if o.patchFile != "" {
		b, err := os.ReadFile(o.patchFile)
		if err != nil {
			return "", nil, fmt.Errorf("unable to read patch file: %v", err)
		}
		body = b
	}
	// Like kubectl, JSON-looking text is sent as it is (the server judges
	// it); anything else is read as YAML.
	body, err := utilyaml.ToJSON(body)
	if err != nil {
		return "", nil, fmt.Errorf("unable to parse %q: %v", o.patch, err)
	}
	return pt, body, nil
}

func (e *writeEnv) patch(ctx context.Context, t targetFlags, args []string, pt types.PatchType, body []byte) error {
	visited, err := e.eachLiveTarget(ctx, t, args, func(client dynamic.ResourceInterface, info *objectInfo) error {
		patched, err := client.Patch(ctx, info.Name, pt, body, metav1.PatchOptions{FieldManager: "kubectl-patch"})
		if err != nil {
			if apierrors.IsUnsupportedMediaType(err) {
				err = fmt.Errorf("%s is not supported by %s: %v", pt, info.Mapping.GroupVersionKind, err)
			}
			return err
		}
		op := "patched"
		if reflect.DeepEqual(info.Obj.Object, patched.Object) {
			op = "patched (no change)"
		}
		fmt.Fprintf(e.streams.Out, "%s %s\n", info.kindName(), op)
		return nil
	})
	if visited == 0 && err == nil {
		return fmt.Errorf("no objects passed to patch")
	}
	return err
}
