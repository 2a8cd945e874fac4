package registry

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func newReplicaSet(name string) *appsv1.ReplicaSet {
	labels := map[string]string{"app": "web", "pod-template-hash": "5fc9f4bf66"}
	return &appsv1.ReplicaSet{
		ObjectMeta: objMeta(name, "default"),
		Spec: appsv1.ReplicaSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{container("nginx", "nginx")}},
			},
		},
	}
}

func createdReplicaSet(name string) *appsv1.ReplicaSet {
	rs := newReplicaSet(name)
	replicaSetStrategy{}.PrepareForCreate(rs)
	rs.ObjectMeta = storedMeta(name, "default")
	return rs
}

func TestReplicaSetDefaults(t *testing.T) {
	rs := newReplicaSet("web-1")
	rs.Status.Replicas = 3
	replicaSetStrategy{}.PrepareForCreate(rs)
	if *rs.Spec.Replicas != 1 || rs.Status.Replicas != 0 {
		t.Errorf("replicas %d, status %+v", *rs.Spec.Replicas, rs.Status)
	}
	ps := rs.Spec.Template.Spec
	if ps.RestartPolicy != corev1.RestartPolicyAlways || *ps.TerminationGracePeriodSeconds != 30 || ps.Containers[0].ImagePullPolicy != corev1.PullAlways {
		t.Errorf("template defaults: %+v", ps)
	}
	wantErrors(t, replicaSetStrategy{}.Validate(rs))
}

func TestReplicaSetValidation(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(rs *appsv1.ReplicaSet)
		want   []string
	}{
		{"negative replicas and minReadySeconds", func(rs *appsv1.ReplicaSet) {
			rs.Spec.Replicas = ptr(int32(-3))
			rs.Spec.MinReadySeconds = -1
		}, []string{
			"spec.replicas: Invalid value: -3: must be greater than or equal to 0",
			"spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0",
		}},
		{"selector mismatch", func(rs *appsv1.ReplicaSet) { rs.Spec.Template.Labels = map[string]string{"app": "web"} }, []string{
			"spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`",
		}},
		{"bad selector operator", func(rs *appsv1.ReplicaSet) {
			rs.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Like"}}
		}, []string{
			`spec.selector.matchExpressions[0].operator: Invalid value: "Like": not a valid selector operator`,
			`spec.selector: Invalid value: {"matchLabels":{"app":"web","pod-template-hash":"5fc9f4bf66"},"matchExpressions":[{"key":"app","operator":"Like"}]}: invalid label selector`,
		}},
		{"activeDeadlineSeconds", func(rs *appsv1.ReplicaSet) { rs.Spec.Template.Spec.ActiveDeadlineSeconds = ptr(int64(1)) }, []string{
			"spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rs := newReplicaSet("web-1")
			tc.mutate(rs)
			replicaSetStrategy{}.PrepareForCreate(rs)
			wantErrors(t, replicaSetStrategy{}.Validate(rs), tc.want...)
		})
	}
}

func TestReplicaSetUpdateAndStatus(t *testing.T) {
	s := replicaSetStrategy{}
	old := createdReplicaSet("web-1")
	old.Status.Replicas = 2

	scaled := old.DeepCopy()
	scaled.Spec.Replicas = ptr(int32(5))
	scaled.Status = appsv1.ReplicaSetStatus{}
	s.PrepareForUpdate(scaled, old)
	if scaled.Status.Replicas != 2 {
		t.Errorf("update did not keep status")
	}
	wantErrors(t, s.ValidateUpdate(scaled, old))
	if !s.GenerationChanged(scaled, old) {
		t.Error("replicas change did not move generation")
	}

	reselect := old.DeepCopy()
	reselect.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	wantErrors(t, s.ValidateUpdate(reselect, old),
		`spec.selector: Invalid value: {"matchLabels":{"app":"web"}}: field is immutable`)

	st := old.DeepCopy()
	st.Spec.Replicas = ptr(int32(9))
	st.Labels = map[string]string{"x": "y"}
	st.Status = appsv1.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 3, ReadyReplicas: 1, AvailableReplicas: 1, ObservedGeneration: 1}
	s.PrepareForStatusUpdate(st, old)
	if *st.Spec.Replicas != 1 || st.Labels["x"] != "y" {
		t.Errorf("status update: replicas %d labels %v", *st.Spec.Replicas, st.Labels)
	}
	wantErrors(t, s.ValidateStatusUpdate(st, old))
	if s.GenerationChanged(st, old) {
		t.Error("status write moved generation")
	}
	st.Status.FullyLabeledReplicas = 4
	wantErrors(t, s.ValidateStatusUpdate(st, old), "status.fullyLabeledReplicas: Invalid value: 4: cannot be greater than status.replicas")
}

func TestReplicaSetGenerationChanged(t *testing.T) {
	old := createdReplicaSet("web-1")
	for name, c := range map[string]struct {
		mutate func(*appsv1.ReplicaSet)
		want   bool
	}{
		"no-op":      {func(*appsv1.ReplicaSet) {}, false},
		"annotation": {func(rs *appsv1.ReplicaSet) { rs.Annotations = map[string]string{"a": "b"} }, false},
		"label":      {func(rs *appsv1.ReplicaSet) { rs.Labels = map[string]string{"a": "b"} }, false},
		"status":     {func(rs *appsv1.ReplicaSet) { rs.Status.Replicas = 4 }, false},
		"template":   {func(rs *appsv1.ReplicaSet) { rs.Spec.Template.Spec.Containers[0].Image = "x" }, true},
	} {
		rs := old.DeepCopy()
		c.mutate(rs)
		if got := (replicaSetStrategy{}).GenerationChanged(rs, old); got != c.want {
			t.Errorf("%s: GenerationChanged = %v, want %v", name, got, c.want)
		}
	}
}

func TestReplicaSetScaleAndFields(t *testing.T) {
	s := replicaSetStrategy{}
	rs := createdReplicaSet("web-1")
	rs.Status.Replicas = 3
	sc := s.Scale(rs)
	if sc.Name != "web-1" || sc.Spec.Replicas != 1 || sc.Status.Replicas != 3 || sc.Status.Selector != "app=web,pod-template-hash=5fc9f4bf66" {
		t.Errorf("scale = %+v", sc)
	}
	s.SetReplicas(rs, 0)
	if *rs.Spec.Replicas != 0 {
		t.Errorf("SetReplicas: %d", *rs.Spec.Replicas)
	}
	f := s.FieldSet(rs)
	if f["status.replicas"] != "3" || f["metadata.name"] != "web-1" || f["metadata.namespace"] != "default" || len(f) != 3 {
		t.Errorf("FieldSet = %v", f)
	}
}
