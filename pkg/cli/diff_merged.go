package cli

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// dryRunAll is the dryRun value that makes the server go through a write
// without storing it.
var dryRunAll = []string{metav1.DryRunAll}

// diffApply is how diff asks the server for the object as apply would
// leave it: the apply minictl would send, with dryRun=All.
type diffApply struct {
	serverSide bool
	force      bool // --force-conflicts
	manager    string
}

// merged returns the object as it would be after apply. live is the object
// on the server (nil when it does not exist yet). unlocked leaves the
// resourceVersion out of a client-side patch: kubectl's last resort when
// the object keeps changing under it.
func (a diffApply) merged(ctx context.Context, client dynamic.ResourceInterface, info *objectInfo, live *unstructured.Unstructured, unlocked bool) (*unstructured.Unstructured, error) {
	if a.serverSide {
		return a.serverSideMerged(ctx, client, info)
	}
	if live == nil {
		local := info.Obj.DeepCopy()
		local.SetResourceVersion("")
		opts := metav1.CreateOptions{DryRun: dryRunAll, FieldManager: a.manager}
		return client.Create(ctx, local, opts)
	}
	return a.clientSideMerged(ctx, client, info, live, unlocked)
}

func (a diffApply) serverSideMerged(ctx context.Context, client dynamic.ResourceInterface, info *objectInfo) (*unstructured.Unstructured, error) {
	data, err := runtime.Encode(unstructured.UnstructuredJSONScheme, info.Obj)
	if err != nil {
		return nil, err
	}
	force := a.force
	opts := metav1.PatchOptions{DryRun: dryRunAll, FieldManager: a.manager, Force: &force}
	return client.Patch(ctx, info.Name, types.ApplyPatchType, data, opts)
}

// clientSideMerged computes client-side apply's three-way patch against
// live and has the server apply it with dryRun. Unlike apply, the modified
// configuration carries no new last-applied annotation, so the live one is
// kept. An empty patch means the object would stay as it is.
func (a diffApply) clientSideMerged(ctx context.Context, client dynamic.ResourceInterface, info *objectInfo, live *unstructured.Unstructured, unlocked bool) (*unstructured.Unstructured, error) {
	modified, err := modifiedConfiguration(info.Obj, false)
	if err != nil {
		return nil, err
	}
	current, err := runtime.Encode(unstructured.UnstructuredJSONScheme, live)
	if err != nil {
		return nil, fmt.Errorf("serializing current configuration from:\n%v\nfor: %w", live, err)
	}
	original := []byte(live.GetAnnotations()[lastAppliedAnnotation])
	patch, patchType, err := applyPatch(info.Mapping.GroupVersionKind, original, modified, current)
	if err != nil {
		return nil, addSourceToErr("patching", info.Source, err)
	}
	if string(patch) == "{}" {
		return live, nil
	}
	if !unlocked {
		if patch, err = withResourceVersion(patch, live.GetResourceVersion()); err != nil {
			return nil, fmt.Errorf("failed to insert resourceVersion in patch: %w", err)
		}
	}
	opts := metav1.PatchOptions{DryRun: dryRunAll, FieldManager: a.manager}
	obj, err := client.Patch(ctx, info.Name, patchType, patch, opts)
	if err != nil {
		return nil, addSourceToErr("patching", info.Source, err)
	}
	return obj, nil
}

// withResourceVersion sets metadata.resourceVersion in a patch, so that the
// server refuses it (409) if the object changed since it was read.
func withResourceVersion(patch []byte, rv string) ([]byte, error) {
	var m map[string]interface{}
	if err := json.Unmarshal(patch, &m); err != nil {
		return nil, err
	}
	u := unstructured.Unstructured{Object: m}
	u.SetResourceVersion(rv)
	return json.Marshal(m)
}
