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
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/csaupgrade"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// fieldManagerServerSideApply is kubectl's default manager for
// apply --server-side; fieldManagerLastApplied owns the last-applied
// annotation once kubectl has moved an object to server-side apply.
const (
	fieldManagerServerSideApply = "kubectl"
	fieldManagerLastApplied     = "kubectl-last-applied"
)

// The warnings kubectl prints when moving an object's ownership from
// client-side to server-side apply fails; the apply itself succeeded.
const (
	warningMigrationLastAppliedFailed = "Warning: failed to migrate kubectl.kubernetes.io/last-applied-configuration for Server-Side Apply. This is non-fatal and will be retried next time you apply. Error: %s\n"
	warningMigrationPatchFailed       = "Warning: server rejected managed fields migration to Server-Side Apply. This is non-fatal and will be retried next time you apply. Error: %s\n"
	warningChangesOnDeletingResource  = "Warning: Detected changes to resource %s which is currently being deleted.\n"
	warningMigrationReapplyFailed     = "Warning: failed to re-apply configuration after performing Server-Side Apply migration. This is non-fatal and will be retried next time you apply. Error: %s\n"
)

// conflictHint is what kubectl adds under the server's conflict message.
const conflictHint = `
Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the ` + "`--force-conflicts`" + ` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts`

var lastAppliedFieldPath = fieldpath.NewSet(fieldpath.MakePathOrDie("metadata", "annotations", lastAppliedAnnotation))

// serverSideApply is one apply --server-side: who applies, and whether
// conflicts are overridden.
type serverSideApply struct {
	dyn        dynamic.Interface
	manager    string
	force      bool
	validation string
	errOut     io.Writer
}

// applyOne sends the whole manifest as an apply patch; the server merges it
// and owns the conflict check. Then, as kubectl does, it moves ownership
// from an earlier client-side apply over to the server-side manager.
func (s *serverSideApply) applyOne(ctx context.Context, info *objectInfo) error {
	if info.Name == "" {
		if info.Obj.GetGenerateName() != "" {
			return fmt.Errorf("from %s: cannot use generate name with apply", info.Obj.GetGenerateName())
		}
		// client-go's request refuses an empty name with these words.
		return fmt.Errorf("resource name may not be empty")
	}
	data, err := runtime.Encode(unstructured.UnstructuredJSONScheme, info.Obj)
	if err != nil {
		return addSourceToErr("serverside-apply", info.Source, err)
	}
	client := info.client(s.dyn)
	obj, err := s.patch(ctx, client, info.Name, data)
	if err != nil {
		if apierrors.IsConflict(err) {
			// %v, not %w: kubectl's message loses the Status, so it prints
			// as "error: Apply failed ...", not "Error from server".
			return fmt.Errorf("%v%s", err, conflictHint)
		}
		return err
	}
	s.migrateOwnership(ctx, client, obj, data)
	if obj.GetDeletionTimestamp() != nil {
		fmt.Fprintf(s.errOut, warningChangesOnDeletingResource, obj.GetName())
	}
	return nil
}

// migrateOwnership hands the last-applied annotation and the fields of an
// earlier client-side apply to server-side managers. The apply has already
// succeeded, so a failure here is a warning (kubectl retries next time).
func (s *serverSideApply) migrateOwnership(ctx context.Context, client dynamic.ResourceInterface, obj *unstructured.Unstructured, data []byte) {
	obj, err := s.saveLastApplied(ctx, client, obj)
	if err != nil {
		fmt.Fprintf(s.errOut, warningMigrationLastAppliedFailed, err)
		return
	}
	migrated, err := s.migrate(ctx, client, obj)
	if err != nil {
		fmt.Fprintf(s.errOut, warningMigrationPatchFailed, err)
		return
	}
	if migrated {
		// Applying again lets the server drop fields that only the
		// client-side manager held and the manifest no longer sets.
		if _, err := s.patch(ctx, client, obj.GetName(), data); err != nil {
			fmt.Fprintf(s.errOut, warningMigrationReapplyFailed, err)
		}
	}
}

func (s *serverSideApply) patch(ctx context.Context, client dynamic.ResourceInterface, name string, data []byte) (*unstructured.Unstructured, error) {
	force := s.force
	opts := metav1.PatchOptions{FieldManager: s.manager, FieldValidation: s.validation, Force: &force}
	return client.Patch(ctx, name, types.ApplyPatchType, data, opts)
}

// saveLastApplied gives the last-applied annotation its own apply manager,
// so that the server keeps it (and kubectl can go back to client-side
// apply). Only the default manager does this, as in kubectl.
func (s *serverSideApply) saveLastApplied(ctx context.Context, client dynamic.ResourceInterface, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if s.manager != fieldManagerServerSideApply {
		return obj, nil
	}
	annotation, ok := obj.GetAnnotations()[lastAppliedAnnotation]
	if !ok {
		return obj, nil
	}
	if len(csaupgrade.FindFieldsOwners(obj.GetManagedFields(), metav1.ManagedFieldsOperationApply, lastAppliedFieldPath)) > 0 {
		return obj, nil
	}
	only := &unstructured.Unstructured{}
	only.SetGroupVersionKind(obj.GroupVersionKind())
	only.SetName(obj.GetName())
	only.SetNamespace(obj.GetNamespace())
	only.SetAnnotations(map[string]string{lastAppliedAnnotation: annotation})
	data, err := runtime.Encode(unstructured.UnstructuredJSONScheme, only)
	if err != nil {
		return nil, err
	}
	opts := metav1.PatchOptions{FieldManager: fieldManagerLastApplied, FieldValidation: s.validation}
	return client.Patch(ctx, obj.GetName(), types.ApplyPatchType, data, opts)
}

// migrate merges the fields of the client-side managers (the Update
// managers that own the last-applied annotation) into the server-side
// manager's entry, retrying on a stale resourceVersion as kubectl does.
func (s *serverSideApply) migrate(ctx context.Context, client dynamic.ResourceInterface, obj *unstructured.Unstructured) (bool, error) {
	owners := csaupgrade.FindFieldsOwners(obj.GetManagedFields(), metav1.ManagedFieldsOperationUpdate, lastAppliedFieldPath)
	managers := sets.New[string]()
	for _, e := range owners {
		managers.Insert(e.Manager)
	}
	var err error
	for attempt := 0; attempt < applyConflictRetries; attempt++ {
		var patch []byte
		patch, err = csaupgrade.UpgradeManagedFieldsPatch(obj, managers, s.manager)
		if err != nil || patch == nil {
			return false, err
		}
		opts := metav1.PatchOptions{FieldManager: s.manager, FieldValidation: s.validation}
		if _, err = client.Patch(ctx, obj.GetName(), types.JSONPatchType, patch, opts); err == nil {
			return true, nil
		}
		if !apierrors.IsConflict(err) {
			return false, err
		}
		if obj, err = client.Get(ctx, obj.GetName(), metav1.GetOptions{}); err != nil {
			return false, err
		}
	}
	return false, err
}

// applyServerSideFlags are apply's flags for server-side apply, named and
// defaulted as kubectl's.
type applyServerSideFlags struct {
	ServerSide bool
	Force      bool
	Manager    string
}

func (f *applyServerSideFlags) add(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.ServerSide, "server-side", false, "If true, apply runs in the server instead of the client.")
	cmd.Flags().BoolVar(&f.Force, "force-conflicts", false, "If true, server-side apply will force the changes against conflicts.")
	cmd.Flags().StringVar(&f.Manager, "field-manager", fieldManagerApply, "Name of the manager used to track field ownership.")
}

// resolveManager applies kubectl's default: without --field-manager,
// server-side apply is "kubectl", so that it differs from the client-side
// manager.
func (f *applyServerSideFlags) resolveManager(cmd *cobra.Command) {
	if f.ServerSide && !cmd.Flags().Changed("field-manager") {
		f.Manager = fieldManagerServerSideApply
	}
}
