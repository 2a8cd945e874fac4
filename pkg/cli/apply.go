package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"
)

const fieldManagerApply = "kubectl-client-side-apply"

// applyConflictRetries is how often apply recomputes its patch after a 409,
// as kubectl's patcher does.
const applyConflictRetries = 5

// warningNoLastApplied is kubectl's warning for applying to an object that
// was not created by apply; the patch then adds the annotation.
const warningNoLastApplied = "Warning: resource %s is missing the " + lastAppliedAnnotation +
	" annotation which is required by minictl apply. minictl apply should only be used on resources created declaratively by" +
	" either minictl create --save-config or minictl apply. The missing annotation will be patched automatically.\n"

func newApplyCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var ff fileFlags
	var ssa applyServerSideFlags
	cmd := &cobra.Command{
		Use:   "apply (-f FILENAME | -k DIRECTORY)",
		Short: "Apply a configuration to a resource by file name or stdin",
		Long: "Apply a configuration to a resource by file name or stdin.\n\n" +
			"minictl applies on the client, as kubectl does by default: it keeps the applied\n" +
			"configuration in the kubectl.kubernetes.io/last-applied-configuration annotation\n" +
			"and sends a three-way strategic merge patch.",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(ff.Filenames) == 0 {
				return fmt.Errorf("must specify one of -f and -k")
			}
			if ssa.Force && !ssa.ServerSide {
				return fmt.Errorf("--force-conflicts only works with --server-side")
			}
			env, err := newWriteEnv(f, streams)
			if err != nil {
				return err
			}
			ssa.resolveManager(cmd)
			return env.apply(cmd.Context(), ff, ssa)
		},
	}
	ff.add(cmd, "that contains the configuration to apply")
	ff.addValidate(cmd)
	ssa.add(cmd)
	return cmd
}

func (e *writeEnv) apply(ctx context.Context, ff fileFlags, ssa applyServerSideFlags) error {
	validation, err := ff.fieldValidation()
	if err != nil {
		return err
	}
	infos, errs, err := e.readInfos(ff)
	if err != nil {
		return err
	}
	if len(infos) == 0 && len(errs) == 0 {
		return fmt.Errorf("no objects passed to apply")
	}
	dyn, err := e.f.Dynamic()
	if err != nil {
		return err
	}
	server := &serverSideApply{dyn: dyn, manager: ssa.Manager, force: ssa.Force, validation: validation, errOut: e.streams.ErrOut}
	for _, info := range infos {
		outcome, err := "serverside-applied", error(nil)
		if ssa.ServerSide {
			err = server.applyOne(ctx, info)
		} else {
			outcome, err = applyOne(ctx, dyn, info, validation, ssa.Manager, e.streams.ErrOut)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(e.streams.Out, "%s %s\n", info.kindName(), outcome)
	}
	return utilerrors.NewAggregate(errs)
}

// applyOne creates the object (with its last-applied annotation) when it
// does not exist, or patches it by three-way merge; it returns kubectl's
// word for what happened: created, configured or unchanged.
func applyOne(ctx context.Context, dyn dynamic.Interface, info *objectInfo, validation, manager string, errOut io.Writer) (string, error) {
	modified, err := modifiedConfiguration(info.Obj, true)
	if err != nil {
		return "", addSourceToErr(fmt.Sprintf("retrieving modified configuration from:\n%s\nfor:", info), info.Source, err)
	}
	client := info.client(dyn)
	if info.Name == "" {
		return "", addSourceToErr(fmt.Sprintf("retrieving current configuration of:\n%s\nfrom server for:", info), info.Source,
			fmt.Errorf("resource name may not be empty"))
	}
	current, err := client.Get(ctx, info.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return applyCreate(ctx, client, info, validation, manager)
	}
	if err != nil {
		return "", addSourceToErr(fmt.Sprintf("retrieving current configuration of:\n%s\nfrom server for:", info), info.Source, err)
	}
	if _, ok := current.GetAnnotations()[lastAppliedAnnotation]; !ok {
		fmt.Fprintf(errOut, warningNoLastApplied, info.Mapping.Resource.Resource+"/"+info.Name)
	}
	for attempt := 0; ; attempt++ {
		patch, changed, err := applyPatchOnce(ctx, client, info, modified, current, validation, manager)
		if err == nil {
			if !changed {
				return "unchanged", nil
			}
			return "configured", nil
		}
		if !apierrors.IsConflict(err) || attempt >= applyConflictRetries {
			return "", addSourceToErr(fmt.Sprintf("applying patch:\n%s\nto:\n%v\nfor:", patch, info), info.Source, err)
		}
		if current, err = client.Get(ctx, info.Name, metav1.GetOptions{}); err != nil {
			return "", addSourceToErr(fmt.Sprintf("retrieving current configuration of:\n%s\nfrom server for:", info), info.Source, err)
		}
	}
}

func applyCreate(ctx context.Context, client dynamic.ResourceInterface, info *objectInfo, validation, manager string) (string, error) {
	if err := setLastApplied(info.Obj); err != nil {
		return "", addSourceToErr("creating", info.Source, err)
	}
	pruneNulls(info.Obj.Object)
	opts := metav1.CreateOptions{FieldManager: manager, FieldValidation: validation}
	if _, err := client.Create(ctx, info.Obj, opts); err != nil {
		return "", addSourceToErr("creating", info.Source, err)
	}
	return "created", nil
}

// applyPatchOnce computes and sends the patch against current; an empty
// patch ("{}") sends nothing and reports no change.
func applyPatchOnce(ctx context.Context, client dynamic.ResourceInterface, info *objectInfo, modified []byte, current *unstructured.Unstructured, validation, manager string) ([]byte, bool, error) {
	currentJSON, err := runtime.Encode(unstructured.UnstructuredJSONScheme, current)
	if err != nil {
		return nil, false, err
	}
	original := []byte(current.GetAnnotations()[lastAppliedAnnotation])
	patch, patchType, err := applyPatch(info.Mapping.GroupVersionKind, original, modified, currentJSON)
	if err != nil {
		return nil, false, err
	}
	if string(patch) == "{}" {
		return patch, false, nil
	}
	opts := metav1.PatchOptions{FieldManager: manager, FieldValidation: validation}
	if _, err = client.Patch(ctx, info.Name, patchType, patch, opts); err != nil {
		return patch, true, addSourceToErr("patching", info.Source, err)
	}
	return patch, true, nil
}
