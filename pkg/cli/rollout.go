package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
)

// Annotations the deployment controller and kubectl keep on Deployments and
// their ReplicaSets.
const (
	revisionAnnotation        = "deployment.kubernetes.io/revision"
	revisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	desiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	maxReplicasAnnotation     = "deployment.kubernetes.io/max-replicas"
	restartedAtAnnotation     = "kubectl.kubernetes.io/restartedAt"
	fieldManagerRollout       = "kubectl-rollout"
)

func newRolloutCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rollout SUBCOMMAND",
		Short: "Manage the rollout of a resource",
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(
		newRolloutStatusCmd(f, streams),
		newRolloutHistoryCmd(f, streams),
		newRolloutUndoCmd(f, streams),
		newRolloutRestartCmd(f, streams),
		newRolloutPauseResumeCmd(f, streams, true),
		newRolloutPauseResumeCmd(f, streams, false),
	)
	return cmd
}

// rolloutDeployments resolves rollout's arguments to Deployments (the only
// kind minictl rolls out) and fetches each one.
func rolloutDeployments(ctx context.Context, f *Factory, streams genericiooptions.IOStreams, args []string, t targetFlags) (*writeEnv, []*appsv1.Deployment, error) {
	env, err := newWriteEnv(f, streams)
	if err != nil {
		return nil, nil, err
	}
	if len(args) == 0 && len(t.files.Filenames) == 0 {
		return nil, nil, fmt.Errorf("required resource not specified")
	}
	infos, err := env.liveTargets(ctx, t, args)
	if err != nil {
		return nil, nil, err
	}
	var out []*appsv1.Deployment
	for _, info := range infos {
		gk := info.Mapping.GroupVersionKind.GroupKind()
		if gk.Group != "apps" || gk.Kind != "Deployment" {
			return nil, nil, fmt.Errorf("no rollout support for %s", gk.String())
		}
		d := &appsv1.Deployment{}
		b, err := info.Obj.MarshalJSON()
		if err == nil {
			err = json.Unmarshal(b, d)
		}
		if err != nil {
			return nil, nil, err
		}
		out = append(out, d)
	}
	return env, out, nil
}

// deploymentReplicaSets lists the ReplicaSets a Deployment controls
// (selector match plus controller reference), split into the one whose
// template matches the Deployment's (new) and the rest (old).
func deploymentReplicaSets(ctx context.Context, cs kubernetes.Interface, d *appsv1.Deployment) (newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet, err error) {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, nil, err
	}
	list, err := cs.AppsV1().ReplicaSets(d.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, nil, err
	}
	var owned []*appsv1.ReplicaSet
	for i := range list.Items {
		rs := &list.Items[i]
		if ref := metav1.GetControllerOf(rs); ref != nil && ref.UID == d.UID {
			owned = append(owned, rs)
		}
	}
	sort.SliceStable(owned, func(i, j int) bool {
		a, b := owned[i].CreationTimestamp, owned[j].CreationTimestamp
		if a.Equal(&b) {
			return owned[i].Name < owned[j].Name
		}
		return a.Before(&b)
	})
	for _, rs := range owned {
		if newRS == nil && templatesEqualIgnoringHash(&rs.Spec.Template, &d.Spec.Template) {
			newRS = rs
			continue
		}
		old = append(old, rs)
	}
	return newRS, old, nil
}

// templatesEqualIgnoringHash compares pod templates without the
// pod-template-hash label the controller adds to ReplicaSets.
func templatesEqualIgnoringHash(a, b *corev1.PodTemplateSpec) bool {
	a, b = a.DeepCopy(), b.DeepCopy()
	delete(a.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	delete(b.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	if len(a.Labels) == 0 {
		a.Labels = nil
	}
	if len(b.Labels) == 0 {
		b.Labels = nil
	}
	return apiequality.Semantic.DeepEqual(a, b)
}

// revisionOf reads the revision annotation; 0 with an error when missing.
func revisionOf(m metav1.Object) (int64, error) {
	v, ok := m.GetAnnotations()[revisionAnnotation]
	if !ok {
		return 0, nil
	}
	return strconv.ParseInt(v, 10, 64)
}

// twoWayDeploymentPatch is the strategic merge patch from before to after,
// as kubectl computes it for restart, pause and resume.
func twoWayDeploymentPatch(before, after *appsv1.Deployment) ([]byte, error) {
	a, err := json.Marshal(before)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(after)
	if err != nil {
		return nil, err
	}
	return strategicpatch.CreateTwoWayMergePatch(a, b, appsv1.Deployment{})
}

func newRolloutRestartCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var t targetFlags
	cmd := &cobra.Command{
		Use:   "restart RESOURCE",
		Short: "Restart a resource",
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			env, deployments, err := rolloutDeployments(ctx, f, streams, args, t)
			if err != nil {
				return err
			}
			now := time.Now().Format(time.RFC3339)
			return env.patchDeployments(ctx, deployments, "restarted", func(d *appsv1.Deployment) error {
				if d.Spec.Paused {
					return fmt.Errorf("can't restart paused deployment (run rollout resume first)")
				}
				if d.Spec.Template.Annotations == nil {
					d.Spec.Template.Annotations = map[string]string{}
				}
				d.Spec.Template.Annotations[restartedAtAnnotation] = now
				return nil
			}, func(name string) error {
				return fmt.Errorf("failed to create patch for %v: if restart has already been triggered within the past second, please wait before attempting to trigger another", name)
			})
		},
	}
	t.add(cmd, "identifying the resource to get from a server")
	return cmd
}

func newRolloutPauseResumeCmd(f *Factory, streams genericiooptions.IOStreams, pause bool) *cobra.Command {
	var t targetFlags
	use, done, short := "resume RESOURCE", "resumed", "Resume a paused resource"
	if pause {
		use, done, short = "pause RESOURCE", "paused", "Mark the provided resource as paused"
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			env, deployments, err := rolloutDeployments(ctx, f, streams, args, t)
			if err != nil {
				return err
			}
			return env.patchDeployments(ctx, deployments, done, func(d *appsv1.Deployment) error {
				switch {
				case pause && d.Spec.Paused:
					return fmt.Errorf("is already paused")
				case !pause && !d.Spec.Paused:
					return fmt.Errorf("is not paused")
				}
				d.Spec.Paused = pause
				return nil
			}, nil)
		},
	}
	t.add(cmd, "identifying the resource to get from a server")
	return cmd
}

// patchDeployments changes each Deployment with mutate and sends the
// difference as a strategic merge patch, printing "KIND/NAME done". An
// empty patch is reported by onEmpty (nil: print "already DONE").
func (e *writeEnv) patchDeployments(ctx context.Context, ds []*appsv1.Deployment, done string,
	mutate func(*appsv1.Deployment) error, onEmpty func(name string) error) error {
	cs, err := e.f.Clientset()
	if err != nil {
		return err
	}
	var errs []error
	for _, d := range ds {
		after := d.DeepCopy()
		if err := mutate(after); err != nil {
			errs = append(errs, fmt.Errorf("error: deployments.apps %q %v", d.Name, err))
			continue
		}
		patch, err := twoWayDeploymentPatch(d, after)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if string(patch) == "{}" {
			if onEmpty != nil {
				errs = append(errs, onEmpty(d.Name))
				continue
			}
			fmt.Fprintf(e.streams.Out, "deployment.apps/%s already %s\n", d.Name, done)
			continue
		}
		_, err = cs.AppsV1().Deployments(d.Namespace).Patch(ctx, d.Name, types.StrategicMergePatchType, patch,
			metav1.PatchOptions{FieldManager: fieldManagerRollout})
		if err != nil {
			errs = append(errs, fmt.Errorf("failed to patch: %v", err))
			continue
		}
		fmt.Fprintf(e.streams.Out, "deployment.apps/%s %s\n", d.Name, done)
	}
	return utilerrors.NewAggregate(errs)
}
