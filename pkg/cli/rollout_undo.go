package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
)

// rollbackKeepAnnotations stay as they are on the Deployment in an undo;
// every other annotation is taken from the ReplicaSet rolled back to.
var rollbackKeepAnnotations = map[string]bool{
	lastAppliedAnnotation:       true,
	revisionAnnotation:          true,
	revisionHistoryAnnotation:   true,
	desiredReplicasAnnotation:   true,
	maxReplicasAnnotation:       true,
	appsv1.DeprecatedRollbackTo: true,
}

func newRolloutUndoCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var t targetFlags
	var toRevision int64
	cmd := &cobra.Command{
		Use:   "undo (TYPE NAME | TYPE/NAME) [flags]",
		Short: "Undo a previous rollout",
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			_, deployments, err := rolloutDeployments(ctx, f, streams, args, t)
			if err != nil {
				return err
			}
			cs, err := f.Clientset()
			if err != nil {
				return err
			}
			for _, d := range deployments {
				result, err := rollbackDeployment(ctx, cs, d, toRevision)
				if err != nil {
					return err
				}
				fmt.Fprintf(streams.Out, "deployment.apps/%s %s\n", d.Name, result)
			}
			return nil
		},
	}
	t.add(cmd, "identifying the resource to get from a server")
	cmd.Flags().Int64Var(&toRevision, "to-revision", 0, "The revision to rollback to. Default to 0 (last revision).")
	return cmd
}

// rollbackDeployment is kubectl 1.37's client-side undo: find the
// ReplicaSet of the wanted revision (default: the one before the newest)
// and JSON-patch the Deployment's template and annotations back to it.
func rollbackDeployment(ctx context.Context, cs kubernetes.Interface, d *appsv1.Deployment, toRevision int64) (string, error) {
	if toRevision < 0 {
		return "", fmt.Errorf("unable to find specified revision %v in history", toRevision)
	}
	name := d.Name
	d, err := cs.AppsV1().Deployments(d.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("failed to retrieve Deployment %s: %v", name, err)
	}
	rs, err := replicaSetForRevision(ctx, cs, d, toRevision)
	if err != nil {
		return "", err
	}
	if d.Spec.Paused {
		return "", fmt.Errorf("you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again")
	}
	if templatesEqualIgnoringHash(&rs.Spec.Template, &d.Spec.Template) {
		return fmt.Sprintf("skipped rollback (current template already matches revision %d)", toRevision), nil
	}
	tpl := rs.Spec.Template.DeepCopy()
	delete(tpl.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	annotations := map[string]string{}
	for k := range rollbackKeepAnnotations {
		if v, ok := d.Annotations[k]; ok {
			annotations[k] = v
		}
	}
	for k, v := range rs.Annotations {
		if !rollbackKeepAnnotations[k] {
			annotations[k] = v
		}
	}
	patch, err := json.Marshal([]interface{}{
		map[string]interface{}{"op": "replace", "path": "/spec/template", "value": tpl},
		map[string]interface{}{"op": "replace", "path": "/metadata/annotations", "value": annotations},
	})
	if err != nil {
		return "", fmt.Errorf("failed restoring revision %d: %v", toRevision, err)
	}
	if _, err := cs.AppsV1().Deployments(d.Namespace).Patch(ctx, d.Name, types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
		return "", fmt.Errorf("failed restoring revision %d: %v", toRevision, err)
	}
	return "rolled back", nil
}

// replicaSetForRevision picks the ReplicaSet of revision toRevision, or with
// 0 the second-newest revision.
func replicaSetForRevision(ctx context.Context, cs kubernetes.Interface, d *appsv1.Deployment, toRevision int64) (*appsv1.ReplicaSet, error) {
	newRS, all, err := deploymentReplicaSets(ctx, cs, d)
	if err != nil {
		return nil, fmt.Errorf("failed to retrieve replica sets from deployment %s: %v", d.Name, err)
	}
	if newRS != nil {
		all = append(all, newRS)
	}
	var latest, previous *appsv1.ReplicaSet
	latestRev, previousRev := int64(-1), int64(-1)
	for _, rs := range all {
		v, err := revisionOf(rs)
		if err != nil {
			continue
		}
		switch {
		case toRevision > 0:
			if v == toRevision {
				return rs, nil
			}
		case v > latestRev:
			previous, previousRev = latest, latestRev
			latest, latestRev = rs, v
		case v > previousRev:
			previous, previousRev = rs, v
		}
	}
	if toRevision > 0 {
		return nil, fmt.Errorf("unable to find specified revision %v in history", toRevision)
	}
	if previous == nil {
		return nil, fmt.Errorf("no rollout history found for deployment %q", d.Name)
	}
	return previous, nil
}
