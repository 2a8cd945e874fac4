package apiserver

import (
	"context"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A batch/v1 Job deleted without a propagationPolicy orphans its pods, as
// kube-apiserver does; kubectl's Background is honoured.
func TestJobDeleteOrphansByDefault(t *testing.T) {
	ts := startTestServer(t)
	c := ts.client(t)
	ctx := context.Background()
	job := func(name string) *batchv1.Job {
		return &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: name, Finalizers: []string{"test/hold"}},
			Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
			}}},
		}
	}
	for _, tc := range []struct {
		name   string
		opts   metav1.DeleteOptions
		orphan bool
	}{
		{"plain", metav1.DeleteOptions{}, true},
		{"background", metav1.DeleteOptions{PropagationPolicy: new(metav1.DeletePropagationBackground)}, false},
	} {
		if _, err := c.BatchV1().Jobs("default").Create(ctx, job(tc.name), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := c.BatchV1().Jobs("default").Delete(ctx, tc.name, tc.opts); err != nil {
			t.Fatal(err)
		}
		got, err := c.BatchV1().Jobs("default").Get(ctx, tc.name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		hasOrphan := false
		for _, f := range got.Finalizers {
			hasOrphan = hasOrphan || f == metav1.FinalizerOrphanDependents
		}
		if hasOrphan != tc.orphan {
			t.Errorf("%s delete: finalizers %v, want orphan %v", tc.name, got.Finalizers, tc.orphan)
		}
	}
}
