package controllers

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	minicontrollers "github.com/miniapi/miniapi/pkg/controllers"
	"github.com/miniapi/miniapi/test/e2e/harness"
)

// TestCronJobFiresOnTheFakeClock runs the real server without its own
// controllers, and miniapi's controllers in this process on a fake clock:
// each step of the clock past a scheduled minute makes exactly one Job,
// named and annotated as kube-controller-manager names it, and
// concurrencyPolicy Forbid skips a run while that Job is still active.
func TestCronJobFiresOnTheFakeClock(t *testing.T) {
	s := harness.Start(t, "--controllers=false")
	c := s.Client()
	ctx := ctxFor(t)

	// The fake clock starts at the server's clock, so the CronJob's
	// creationTimestamp (server time) and the controller's "now" agree.
	clk := clocktesting.NewFakeClock(time.Now())
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- minicontrollers.Run(runCtx, s.Config(), minicontrollers.Options{
			Nodes: 1, Clock: clk, Logger: slog.New(slog.DiscardHandler),
			// The Job's pod runs until the clock passes an hour, so the
			// Job stays active across the next scheduled minute.
			PodRunDuration: time.Hour,
		})
	}()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("controllers: %v", err)
		}
	})

	cj := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "tick"},
		Spec: batchv1.CronJobSpec{
			Schedule:          "* * * * *",
			ConcurrencyPolicy: batchv1.ForbidConcurrent,
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
			}}}},
		},
	}
	cj, err := c.BatchV1().CronJobs(ns).Create(ctx, cj, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	jobNames := func() string {
		jobs, err := c.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err.Error()
		}
		out := ""
		for _, j := range jobs.Items {
			out += j.Name + "=" + j.Annotations["batch.kubernetes.io/cronjob-scheduled-timestamp"] + " "
		}
		return out
	}

	// No time has passed on the fake clock: no run is due once the
	// controllers have seen the CronJob (the node controller's Node shows
	// they run; the cronjob controller reconciles it on creation).
	eventually(t, 20*time.Second, "the controllers to start", func() (bool, string) {
		nodes, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		return err == nil && len(nodes.Items) == 1, fmt.Sprint(err)
	})
	if got := jobNames(); got != "" {
		t.Fatalf("before the first scheduled minute: jobs %q", got)
	}

	// Past the next minute boundary: one Job for that minute.
	first := cj.CreationTimestamp.Truncate(time.Minute).Add(time.Minute)
	clk.SetTime(first.Add(time.Second))
	name := fmt.Sprintf("tick-%d", first.Unix()/60)
	want := name + "=" + first.UTC().Format(time.RFC3339) + " "
	eventually(t, 20*time.Second, "the first run's Job", func() (bool, string) {
		got := jobNames()
		return got == want, got
	})
	eventually(t, 20*time.Second, "SuccessfulCreate", hasEvent(t, c, "tick", "SuccessfulCreate", "Created job "+name))
	eventually(t, 20*time.Second, "status.active and lastScheduleTime", func() (bool, string) {
		got, err := c.BatchV1().CronJobs(ns).Get(ctx, "tick", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return len(got.Status.Active) == 1 && got.Status.LastScheduleTime != nil && got.Status.LastScheduleTime.Time.Equal(first),
			fmt.Sprintf("%+v", got.Status)
	})

	// The next minute comes while that Job runs: Forbid skips it.
	clk.SetTime(first.Add(time.Minute + time.Second))
	eventually(t, 20*time.Second, "JobAlreadyActive", hasEvent(t, c, "tick", "JobAlreadyActive",
		"Not starting job because prior execution is running and concurrency policy is Forbid"))
	if got := jobNames(); got != want {
		t.Errorf("Forbid with a Job active: jobs %q, want %q", got, want)
	}
}
