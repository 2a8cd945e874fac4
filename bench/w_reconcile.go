package main

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// reconcile creates Deployments × replicas at once on a miniapi started
// with --pod-ready-delay=0 and times first create → every Deployment
// Available with all its replicas available (pods Running and Ready).
func reconcile(ctx context.Context, e *env) error {
	for _, dr := range e.sizes.Reconcile {
		if err := reconcileRound(ctx, e, dr[0], dr[1]); err != nil {
			return err
		}
	}
	return nil
}

func reconcileRound(ctx context.Context, e *env, deployments, replicas int) error {
	c, err := e.newCluster(ctx, "--pod-ready-delay=0")
	if err != nil {
		return err
	}
	ns := e.nsName(fmt.Sprintf("deploy-%d", deployments))
	defer c.close(ctx, ns)
	if _, err := c.namespace(ctx, ns); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	wait := func() {}
	if deployments == e.sizes.Reconcile[len(e.sizes.Reconcile)-1][0] {
		wait = e.profileDuring(ctx, c, "reconcile")
	}
	defer wait()

	t0 := time.Now()
	created := make(chan error, 1)
	go func() {
		_, err := parallel(wctx, 0, deployments, 16, func(ctx context.Context, i int) error {
			_, err := c.cs.AppsV1().Deployments(ns).Create(ctx, benchDeployment(ns, i, int32(replicas)), metav1.CreateOptions{})
			return err
		})
		created <- err
	}()
	if err := waitAvailable(wctx, c, ns, deployments, created); err != nil {
		return fmt.Errorf("%d×%d: %w", deployments, replicas, err)
	}
	took := time.Since(t0).Seconds()
	label := fmt.Sprintf("%s×%d", groupThousands(int64(deployments)), replicas)
	key := fmt.Sprintf("reconcile.%dx%d", deployments, replicas)
	f := e.add("reconcile", key+".s", label+": first create → all Available", took, "s")
	if e.variant.key == "nojournal" {
		if on, ok := e.res.lookup(key + ".s"); ok {
			f.vs("journal on", on.Value)
		}
	}
	switch deployments {
	case 100:
		f.atMost(1, "≤ 1 s")
	case 1000:
		f.atMost(10, "≤ 10 s")
	}
	e.add("reconcile", key+".pods_per_s", label+": pods Running and Ready per second", float64(deployments*replicas)/took, "/s")
	return nil
}

// waitAvailable lists and watches the Deployments of ns until n of them
// are Available with every replica available. Like an informer it lists
// again and resumes when the server ends the watch (a slow watcher is cut
// off rather than allowed to slow writers).
func waitAvailable(ctx context.Context, c *cluster, ns string, n int, created <-chan error) error {
	ready := map[string]bool{}
	mark := func(d *appsv1.Deployment) {
		if available(d) {
			ready[d.Name] = true
		} else {
			delete(ready, d.Name)
		}
	}
	for {
		list, err := c.cs.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("%d of %d Deployments Available: %w", len(ready), n, err)
		}
		for i := range list.Items {
			mark(&list.Items[i])
		}
		if len(ready) >= n {
			return nil
		}
		w, err := c.cs.AppsV1().Deployments(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
		if err != nil {
			return err
		}
		done, err := readUntilAvailable(ctx, w, ready, mark, n, created)
		w.Stop()
		if done || err != nil {
			return err
		}
	}
}

// readUntilAvailable consumes one watch; it returns false, nil when the
// watch ended before n Deployments were Available.
func readUntilAvailable(ctx context.Context, w watch.Interface, ready map[string]bool, mark func(*appsv1.Deployment), n int, created <-chan error) (bool, error) {
	for len(ready) < n {
		select {
		case err := <-created:
			if err != nil {
				return false, fmt.Errorf("creating deployments: %w", err)
			}
		case ev, ok := <-w.ResultChan():
			if !ok {
				return false, nil
			}
			if d, isDeploy := ev.Object.(*appsv1.Deployment); isDeploy {
				mark(d)
			}
		case <-ctx.Done():
			return false, fmt.Errorf("%d of %d Deployments Available when time ran out", len(ready), n)
		}
	}
	return true, nil
}

func available(d *appsv1.Deployment) bool {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	if d.Status.ObservedGeneration < d.Generation || d.Status.AvailableReplicas < want || d.Status.UpdatedReplicas < want {
		return false
	}
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
