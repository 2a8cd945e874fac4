package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	watchtools "k8s.io/client-go/tools/watch"
)

// progressDeadlineExceeded is the Progressing condition's reason once a
// rollout has made no progress for spec.progressDeadlineSeconds.
const progressDeadlineExceeded = "ProgressDeadlineExceeded"

// deploymentRolloutStatus is the line `rollout status` prints for one state
// of a Deployment, and whether the rollout is complete. The checks and their
// order are kubectl's: observed generation, deadline, updated replicas, old
// replicas still running, then availability.
func deploymentRolloutStatus(d *appsv1.Deployment, revision int64) (string, bool, error) {
	if revision > 0 {
		current, err := revisionOf(d)
		if err != nil {
			return "", false, fmt.Errorf("cannot get the revision of deployment %q: %v", d.Name, err)
		}
		if revision != current {
			return "", false, fmt.Errorf("desired revision (%d) is different from the running revision (%d)", revision, current)
		}
	}
	if d.Generation > d.Status.ObservedGeneration {
		return "Waiting for deployment spec update to be observed...\n", false, nil
	}
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing && c.Reason == progressDeadlineExceeded {
			return "", false, fmt.Errorf("deployment %q exceeded its progress deadline", d.Name)
		}
	}
	s := d.Status
	if d.Spec.Replicas != nil && s.UpdatedReplicas < *d.Spec.Replicas {
		return fmt.Sprintf("Waiting for deployment %q rollout to finish: %d out of %d new replicas have been updated...\n",
			d.Name, s.UpdatedReplicas, *d.Spec.Replicas), false, nil
	}
	if s.Replicas > s.UpdatedReplicas {
		return fmt.Sprintf("Waiting for deployment %q rollout to finish: %d old replicas are pending termination...\n",
			d.Name, s.Replicas-s.UpdatedReplicas), false, nil
	}
	if s.AvailableReplicas < s.UpdatedReplicas {
		return fmt.Sprintf("Waiting for deployment %q rollout to finish: %d of %d updated replicas are available...\n",
			d.Name, s.AvailableReplicas, s.UpdatedReplicas), false, nil
	}
	return fmt.Sprintf("deployment %q successfully rolled out\n", d.Name), true, nil
}

func newRolloutStatusCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var t targetFlags
	var watchFlag bool
	var revision int64
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "status (TYPE NAME | TYPE/NAME) [flags]",
		Short: "Show the status of the rollout",
		RunE: func(cmd *cobra.Command, args []string) error {
			if revision < 0 {
				return fmt.Errorf("revision must be a positive integer: %v", revision)
			}
			ctx := cmd.Context()
			env, deployments, err := rolloutDeployments(ctx, f, streams, args, t)
			if err != nil {
				return err
			}
			if len(deployments) == 0 {
				fmt.Fprintf(streams.ErrOut, "No resources found in %s namespace.\n", env.target.Namespace)
				return nil
			}
			for _, d := range deployments {
				if err := env.watchRollout(ctx, d, revision, watchFlag, timeout); err != nil {
					return err
				}
			}
			return nil
		},
	}
	t.add(cmd, "identifying the resource to get from a server")
	cmd.Flags().BoolVarP(&watchFlag, "watch", "w", true, "Watch the status of the rollout until it's done.")
	cmd.Flags().Int64Var(&revision, "revision", 0, "Pin to a specific revision for showing its status. Defaults to 0 (last revision).")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "The length of time to wait before ending watch, zero means never.")
	return cmd
}

// watchRollout prints the rollout's progress on every change of the
// Deployment until it completes, the timeout ends the wait, or the object
// is deleted. Like kubectl it watches just that name with WatchList
// semantics (the current state arrives first, then changes).
func (e *writeEnv) watchRollout(ctx context.Context, d *appsv1.Deployment, revision int64, keepWatching bool, timeout time.Duration) error {
	dyn, err := e.f.Dynamic()
	if err != nil {
		return err
	}
	res := dyn.Resource(appsv1.SchemeGroupVersion.WithResource("deployments")).Namespace(d.Namespace)
	lw := nameListWatch(res, dyn, d.Name)
	wctx, cancel := watchtools.ContextWithOptionalTimeout(ctx, timeout)
	defer cancel()
	_, err = watchtools.UntilWithSync(wctx, lw, &unstructured.Unstructured{}, nil, func(ev watch.Event) (bool, error) {
		switch ev.Type {
		case watch.Added, watch.Modified:
			u, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				return false, fmt.Errorf("unexpected object %T", ev.Object)
			}
			dep := &appsv1.Deployment{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, dep); err != nil {
				return false, err
			}
			msg, done, err := deploymentRolloutStatus(dep, revision)
			if err != nil {
				return false, err
			}
			fmt.Fprint(e.streams.Out, msg)
			return done || !keepWatching, nil
		case watch.Deleted:
			return true, fmt.Errorf("object has been deleted")
		}
		return true, fmt.Errorf("internal error: unexpected event %#v", ev)
	})
	if wait.Interrupted(err) || (err != nil && wctx.Err() != nil && ctx.Err() == nil) {
		return fmt.Errorf("timed out waiting for the condition")
	}
	return err
}
