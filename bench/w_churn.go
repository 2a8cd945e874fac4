package main

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// churnClients update the churned objects concurrently; each owns every
// churnClients-th object, so no update conflicts.
const churnClients = 16

// churn creates ChurnObjects pods, then updates them ChurnUpdates times in
// all, and compares the database file's size after the creates, half-way
// and at the end. The watch history (the store's compaction: older events
// are deleted as new ones come) is set to twice the objects, so both later
// sizes are taken with the history full and "bounded" means the file
// stopped growing.
func churn(ctx context.Context, e *env) error {
	if e.opts.Kubeconfig != "" {
		e.skip("churn: needs miniapi's database file")
		return nil
	}
	history := 2 * e.sizes.ChurnObjects
	c, err := e.newCluster(ctx, fmt.Sprintf("--watch-history=%d", history))
	if err != nil {
		return err
	}
	defer c.close(ctx)
	ns, err := c.namespace(ctx, e.nsName("churn"))
	if err != nil {
		return err
	}
	pods := make([]*corev1.Pod, e.sizes.ChurnObjects)
	if _, err := parallel(ctx, 0, len(pods), e.sizes.FillClients, func(ctx context.Context, i int) error {
		p, err := c.cs.CoreV1().Pods(ns).Create(ctx, benchPod(ns, i), metav1.CreateOptions{})
		pods[i] = p
		return err
	}); err != nil {
		return err
	}
	first, err := c.srv.DBBytes()
	if err != nil {
		return err
	}
	half := e.sizes.ChurnUpdates / 2
	if _, err := updateRound(ctx, c, pods, 0, half); err != nil {
		return err
	}
	mid, err := c.srv.DBBytes()
	if err != nil {
		return err
	}
	wait := e.profileDuring(ctx, c, "churn")
	took, err := updateRound(ctx, c, pods, half, e.sizes.ChurnUpdates)
	wait()
	if err != nil {
		return err
	}
	end, err := c.srv.DBBytes()
	if err != nil {
		return err
	}
	objs := groupThousands(int64(len(pods)))
	e.res.add("churn", "churn.first_mb", fmt.Sprintf("database after creating %s pods", objs), mb(first), "MB")
	e.res.add("churn", "churn.mid_mb", fmt.Sprintf("database after %s updates", groupThousands(int64(half))), mb(mid), "MB").vs("after creates", mb(first))
	e.res.add("churn", "churn.end_mb", fmt.Sprintf("database after %s updates (history %s)", groupThousands(int64(e.sizes.ChurnUpdates)), groupThousands(int64(history))), mb(end), "MB").
		vs("half-way", mb(mid)).ratioAtMost(1.25, "bounded: ≤ 1.25× half-way")
	e.res.add("churn", "churn.updates_per_s", fmt.Sprintf("updates/s, %d clients", churnClients), float64(e.sizes.ChurnUpdates-half)/took.Seconds(), "/s")
	return nil
}

// updateRound runs updates [from, to) spread over the churn clients and
// returns the wall time they took.
func updateRound(ctx context.Context, c *cluster, pods []*corev1.Pod, from, to int) (time.Duration, error) {
	return parallel(ctx, 0, churnClients, churnClients, func(ctx context.Context, w int) error {
		return updateOwn(ctx, c, pods, w, from, to)
	})
}

// updateOwn does client w's share of updates [from, to): update u belongs
// to client u % churnClients, which cycles through its own pods (pod i
// belongs to client i % churnClients), always sending the latest version.
func updateOwn(ctx context.Context, c *cluster, pods []*corev1.Pod, w, from, to int) error {
	own := []int{}
	for i := w; i < len(pods); i += churnClients {
		own = append(own, i)
	}
	if len(own) == 0 {
		return nil
	}
	for u := from + w; u < to; u += churnClients {
		i := own[(u/churnClients)%len(own)]
		p := pods[i].DeepCopy()
		p.Annotations["bench.miniapi.io/update"] = fmt.Sprint(u)
		got, err := c.cs.CoreV1().Pods(p.Namespace).Update(ctx, p, metav1.UpdateOptions{})
		if err != nil {
			return fmt.Errorf("update %d of pod %s: %w", u, p.Name, err)
		}
		pods[i] = got
	}
	return nil
}

func mb(b int64) float64 { return float64(b) / 1e6 }
