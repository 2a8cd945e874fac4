package deployment

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// nginxTemplate is the template `kubectl create deployment web --image=nginx`
// produces after kube-apiserver's defaulting (from the reference capture).
func nginxTemplate(image string) corev1.PodTemplateSpec {
	grace := int64(30)
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "nginx", Image: image, ImagePullPolicy: corev1.PullAlways,
				TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
			}},
			RestartPolicy:                 corev1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: &grace,
			DNSPolicy:                     corev1.DNSClusterFirst,
			SecurityContext:               &corev1.PodSecurityContext{},
			SchedulerName:                 corev1.DefaultSchedulerName,
		},
	}
}

func TestPodTemplateHashMatchesKubernetes(t *testing.T) {
	// A real kube-controller-manager 1.37 named this template's
	// ReplicaSet web-5fc9f4bf66 (shared/reference/kubectl-1.37-outputs.md).
	tmpl := nginxTemplate("nginx")
	if got := podTemplateHash(&tmpl, nil); got != "5fc9f4bf66" {
		t.Errorf("podTemplateHash = %q, want 5fc9f4bf66", got)
	}
}

func TestPodTemplateHashChangesWithTemplateAndCollisions(t *testing.T) {
	a, b := nginxTemplate("nginx"), nginxTemplate("nginx:1.27")
	ha := podTemplateHash(&a, nil)
	if hb := podTemplateHash(&b, nil); hb == ha {
		t.Errorf("different images share hash %q", ha)
	}
	one := int32(1)
	if hc := podTemplateHash(&a, &one); hc == ha {
		t.Errorf("collisionCount 1 did not change hash %q", ha)
	}
	if again := podTemplateHash(&a, nil); again != ha {
		t.Errorf("hash not stable: %q then %q", ha, again)
	}
}
