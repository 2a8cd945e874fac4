package cli

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func deploymentWith(gen, observed int64, replicas int32, status appsv1.DeploymentStatus) *appsv1.Deployment {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Generation: gen}}
	d.Spec.Replicas = &replicas
	status.ObservedGeneration = observed
	d.Status = status
	return d
}

func TestDeploymentRolloutStatus(t *testing.T) {
	cases := []struct {
		name string
		d    *appsv1.Deployment
		want string
		done bool
	}{
		{"not observed", deploymentWith(2, 1, 3, appsv1.DeploymentStatus{}),
			"Waiting for deployment spec update to be observed...\n", false},
		{"updating", deploymentWith(1, 1, 3, appsv1.DeploymentStatus{UpdatedReplicas: 1, Replicas: 3}),
			"Waiting for deployment \"web\" rollout to finish: 1 out of 3 new replicas have been updated...\n", false},
		{"old pending", deploymentWith(1, 1, 3, appsv1.DeploymentStatus{UpdatedReplicas: 3, Replicas: 4}),
			"Waiting for deployment \"web\" rollout to finish: 1 old replicas are pending termination...\n", false},
		{"availability", deploymentWith(1, 1, 3, appsv1.DeploymentStatus{UpdatedReplicas: 3, Replicas: 3, AvailableReplicas: 1}),
			"Waiting for deployment \"web\" rollout to finish: 1 of 3 updated replicas are available...\n", false},
		{"done", deploymentWith(1, 1, 3, appsv1.DeploymentStatus{UpdatedReplicas: 3, Replicas: 3, AvailableReplicas: 3}),
			"deployment \"web\" successfully rolled out\n", true},
	}
	for _, tc := range cases {
		got, done, err := deploymentRolloutStatus(tc.d, 0)
		if err != nil || got != tc.want || done != tc.done {
			t.Errorf("%s: got %q %v %v, want %q %v", tc.name, got, done, err, tc.want, tc.done)
		}
	}
}

func TestDeploymentRolloutStatusErrors(t *testing.T) {
	d := deploymentWith(1, 1, 3, appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{
		{Type: appsv1.DeploymentProgressing, Reason: progressDeadlineExceeded}}})
	if _, _, err := deploymentRolloutStatus(d, 0); err == nil || err.Error() != `deployment "web" exceeded its progress deadline` {
		t.Errorf("deadline: got %v", err)
	}
	d = deploymentWith(1, 1, 1, appsv1.DeploymentStatus{})
	d.Annotations = map[string]string{revisionAnnotation: "2"}
	if _, _, err := deploymentRolloutStatus(d, 3); err == nil || err.Error() != "desired revision (3) is different from the running revision (2)" {
		t.Errorf("revision: got %v", err)
	}
}
