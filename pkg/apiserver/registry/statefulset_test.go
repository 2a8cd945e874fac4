package registry

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func newStatefulSet(name string) *appsv1.StatefulSet {
	labels := map[string]string{"app": name}
	return &appsv1.StatefulSet{
		ObjectMeta: objMeta(name, "default"),
		Spec: appsv1.StatefulSetSpec{
			ServiceName: name,
			Selector:    &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{container("pg", "postgres")}},
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"}}},
		},
	}
}

func createdStatefulSet(name string) *appsv1.StatefulSet {
	s := newStatefulSet(name)
	statefulSetStrategy{}.PrepareForCreate(s)
	s.ObjectMeta = storedMeta(name, "default")
	return s
}

func TestStatefulSetDefaults(t *testing.T) {
	s := newStatefulSet("db")
	s.Status.Replicas = 2
	statefulSetStrategy{}.PrepareForCreate(s)
	sp := s.Spec
	if *sp.Replicas != 1 || s.Status.Replicas != 0 || *sp.RevisionHistoryLimit != 10 || sp.PodManagementPolicy != appsv1.OrderedReadyPodManagement {
		t.Errorf("spec %+v status %+v", sp, s.Status)
	}
	ru := sp.UpdateStrategy.RollingUpdate
	if sp.UpdateStrategy.Type != appsv1.RollingUpdateStatefulSetStrategyType || *ru.Partition != 0 || ru.MaxUnavailable.IntValue() != 1 {
		t.Errorf("updateStrategy %+v", sp.UpdateStrategy)
	}
	if p := sp.PersistentVolumeClaimRetentionPolicy; p.WhenDeleted != "Retain" || p.WhenScaled != "Retain" {
		t.Errorf("retention %+v", p)
	}
	c := sp.VolumeClaimTemplates[0]
	if c.Kind != "PersistentVolumeClaim" || c.APIVersion != "v1" || *c.Spec.VolumeMode != corev1.PersistentVolumeFilesystem || c.Status.Phase != corev1.ClaimPending {
		t.Errorf("claim template %+v", c)
	}
	if sp.Template.Spec.RestartPolicy != corev1.RestartPolicyAlways || sp.Template.Spec.Containers[0].ImagePullPolicy != corev1.PullAlways {
		t.Errorf("template defaults %+v", sp.Template.Spec)
	}
	wantErrors(t, statefulSetStrategy{}.Validate(s))
}

func TestStatefulSetValidation(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(s *appsv1.StatefulSet)
		want   []string
	}{
		{"selector mismatch", func(s *appsv1.StatefulSet) { s.Spec.Template.Labels = map[string]string{"app": "other"} }, []string{
			"spec.template.metadata.labels: Invalid value: {\"app\":\"other\"}: `selector` does not match template `labels`",
		}},
		{"negative replicas and partition", func(s *appsv1.StatefulSet) {
			s.Spec.Replicas = ptr(int32(-1))
			s.Spec.UpdateStrategy.RollingUpdate.Partition = ptr(int32(-2))
		}, []string{
			"spec.updateStrategy.rollingUpdate.partition: Invalid value: -2: must be greater than or equal to 0",
			"spec.replicas: Invalid value: -1: must be greater than or equal to 0",
		}},
		{"empty selector", func(s *appsv1.StatefulSet) { s.Spec.Selector = &metav1.LabelSelector{} }, []string{
			"spec.selector: Invalid value: {}: empty selector is invalid for statefulset",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newStatefulSet("db")
			statefulSetStrategy{}.PrepareForCreate(s)
			tc.mutate(s)
			wantErrors(t, statefulSetStrategy{}.Validate(s), tc.want...)
		})
	}
}

func TestStatefulSetUpdate(t *testing.T) {
	old := createdStatefulSet("db")
	s := old.DeepCopy()
	s.Spec.ServiceName = "other"
	wantErrors(t, statefulSetStrategy{}.ValidateUpdate(s, old), `spec.serviceName: Invalid value: "other": field is immutable`)

	s = old.DeepCopy()
	s.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
	wantErrors(t, statefulSetStrategy{}.ValidateUpdate(s, old), `spec.podManagementPolicy: Invalid value: "Parallel": field is immutable`)

	s = old.DeepCopy()
	s.Spec.Replicas = ptr(int32(5))
	s.Spec.Template.Spec.Containers[0].Image = "postgres:17"
	statefulSetStrategy{}.PrepareForUpdate(s, old)
	wantErrors(t, statefulSetStrategy{}.ValidateUpdate(s, old))
	if !(statefulSetStrategy{}).GenerationChanged(s, old) {
		t.Error("a template change must move the generation")
	}
	if sc := (statefulSetStrategy{}).Scale(s); sc.Spec.Replicas != 5 || sc.Status.Selector != "app=db" {
		t.Errorf("scale %+v", sc)
	}
}
