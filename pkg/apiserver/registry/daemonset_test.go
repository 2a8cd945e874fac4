package registry

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func newDaemonSet(name string) *appsv1.DaemonSet {
	labels := map[string]string{"app": "agent"}
	return &appsv1.DaemonSet{
		ObjectMeta: objMeta(name, "default"),
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{container("agent", "busybox")}},
			},
		},
	}
}

func createdDaemonSet(name string) *appsv1.DaemonSet {
	ds := newDaemonSet(name)
	daemonSetStrategy{}.PrepareForCreate(ds)
	annotations := ds.Annotations
	ds.ObjectMeta = storedMeta(name, "default")
	ds.Annotations = annotations
	return ds
}

// The defaults the reference's `kubectl get daemonset agent -o yaml` shows.
func TestDaemonSetDefaults(t *testing.T) {
	ds := newDaemonSet("agent")
	ds.Status.NumberReady = 4
	ds.Annotations = map[string]string{TemplateGenerationAnnotation: "7"}
	daemonSetStrategy{}.PrepareForCreate(ds)
	u := ds.Spec.UpdateStrategy
	if u.Type != appsv1.RollingUpdateDaemonSetStrategyType || u.RollingUpdate.MaxUnavailable.String() != "1" || u.RollingUpdate.MaxSurge.String() != "0" {
		t.Errorf("updateStrategy = %+v", u)
	}
	if *ds.Spec.RevisionHistoryLimit != 10 || ds.Status.NumberReady != 0 || ds.Annotations[TemplateGenerationAnnotation] != "1" {
		t.Errorf("spec %+v status %+v annotations %v", ds.Spec, ds.Status, ds.Annotations)
	}
	ps := ds.Spec.Template.Spec
	if ps.RestartPolicy != corev1.RestartPolicyAlways || ps.SchedulerName != "default-scheduler" || ps.Containers[0].ImagePullPolicy != corev1.PullAlways {
		t.Errorf("template defaults: %+v", ps)
	}
	wantErrors(t, daemonSetStrategy{}.Validate(ds))

	onDelete := newDaemonSet("agent")
	onDelete.Spec.UpdateStrategy.Type = appsv1.OnDeleteDaemonSetStrategyType
	daemonSetStrategy{}.PrepareForCreate(onDelete)
	if onDelete.Spec.UpdateStrategy.RollingUpdate != nil {
		t.Errorf("OnDelete got rollingUpdate %+v", onDelete.Spec.UpdateStrategy.RollingUpdate)
	}
}

// The template generation moves only with the template; status writes
// keep it and the spec.
func TestDaemonSetTemplateGeneration(t *testing.T) {
	old := createdDaemonSet("agent")
	s := daemonSetStrategy{}

	same := old.DeepCopy()
	same.Spec.MinReadySeconds = 5
	s.PrepareForUpdate(same, old)
	if same.Annotations[TemplateGenerationAnnotation] != "1" || !s.GenerationChanged(same, old) {
		t.Errorf("non-template change: annotations %v", same.Annotations)
	}

	changed := old.DeepCopy()
	changed.Spec.Template.Spec.Containers[0].Image = "busybox:2"
	delete(changed.Annotations, TemplateGenerationAnnotation)
	s.PrepareForUpdate(changed, old)
	if changed.Annotations[TemplateGenerationAnnotation] != "2" {
		t.Errorf("template change: annotations %v", changed.Annotations)
	}

	status := changed.DeepCopy()
	status.Spec.Template.Spec.Containers[0].Image = "ignored"
	status.Annotations[TemplateGenerationAnnotation] = "9"
	status.Status.NumberReady = 1
	s.PrepareForStatusUpdate(status, changed)
	if status.Spec.Template.Spec.Containers[0].Image != "busybox:2" || status.Annotations[TemplateGenerationAnnotation] != "2" || status.Status.NumberReady != 1 {
		t.Errorf("status update: %+v", status)
	}
	if s.GenerationChanged(status, changed) {
		t.Error("a status write moved the generation")
	}
}

// The three patches of the reference's "DaemonSet validation errors".
func TestDaemonSetUpdateValidation(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(ds *appsv1.DaemonSet)
		want   []string
	}{
		{"selector", func(ds *appsv1.DaemonSet) { ds.Spec.Selector.MatchLabels = map[string]string{"app": "other"} }, []string{
			`spec.selector: Invalid value: {"matchLabels":{"app":"other"}}: field is immutable`,
			"spec.template.metadata.labels: Invalid value: {\"app\":\"agent\"}: `selector` does not match template `labels`",
		}},
		{"restartPolicy", func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure }, []string{
			`spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"`,
		}},
		{"Recreate", func(ds *appsv1.DaemonSet) { ds.Spec.UpdateStrategy.Type = "Recreate" }, []string{
			`spec.updateStrategy: Unsupported value: {"Type":"Recreate","RollingUpdate":{"MaxUnavailable":1,"MaxSurge":0}}: supported values: "RollingUpdate", "OnDelete"`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			old := createdDaemonSet("agent")
			ds := old.DeepCopy()
			tc.mutate(ds)
			daemonSetStrategy{}.PrepareForUpdate(ds, old)
			wantErrors(t, daemonSetStrategy{}.ValidateUpdate(ds, old), tc.want...)
		})
	}
}

func TestDaemonSetCreateValidation(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(ds *appsv1.DaemonSet)
		want   []string
	}{
		{"empty selector", func(ds *appsv1.DaemonSet) { ds.Spec.Selector = &metav1.LabelSelector{} }, []string{
			"spec.selector: Invalid value: {}: empty selector is invalid for daemonset",
		}},
		{"no selector", func(ds *appsv1.DaemonSet) { ds.Spec.Selector = nil }, []string{
			"spec.template.metadata.labels: Invalid value: {\"app\":\"agent\"}: `selector` does not match template `labels`",
		}},
		{"activeDeadlineSeconds", func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.ActiveDeadlineSeconds = ptr(int64(5)) }, []string{
			"spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in DaemonSet is not Supported",
		}},
		{"both surge and unavailable", func(ds *appsv1.DaemonSet) {
			surge := intstr.FromString("10%")
			ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxSurge: &surge}
		}, []string{
			`spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "10%": may not be set when maxUnavailable is non-zero`,
		}},
		{"both zero", func(ds *appsv1.DaemonSet) {
			zero := intstr.FromInt32(0)
			ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &zero}
		}, []string{
			"spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0",
		}},
		{"negative counters", func(ds *appsv1.DaemonSet) {
			ds.Spec.MinReadySeconds = -1
			ds.Spec.RevisionHistoryLimit = ptr(int32(-2))
		}, []string{
			"spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0",
			"spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal to 0",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ds := newDaemonSet("agent")
			tc.mutate(ds)
			daemonSetStrategy{}.PrepareForCreate(ds)
			wantErrors(t, daemonSetStrategy{}.Validate(ds), tc.want...)
		})
	}
}

func TestDaemonSetStatusValidation(t *testing.T) {
	old := createdDaemonSet("agent")
	ds := old.DeepCopy()
	ds.Status.NumberReady = -1
	wantErrors(t, daemonSetStrategy{}.ValidateStatusUpdate(ds, old), "status.numberReady: Invalid value: -1: must be greater than or equal to 0")
}

func TestControllerRevisionValidation(t *testing.T) {
	s := controllerRevisionStrategy{}
	r := &appsv1.ControllerRevision{ObjectMeta: objMeta("agent-759f6bbb99", "default"), Revision: 1,
		Data: runtime.RawExtension{Raw: []byte(`{"spec":{"template":{"$patch":"replace"}}}`)}}
	wantErrors(t, s.Validate(r))

	bad := &appsv1.ControllerRevision{ObjectMeta: objMeta("x", "default"), Revision: -1}
	wantErrors(t, s.Validate(bad), "data: Required value: data is mandatory", "revision: Invalid value: -1: must be greater than or equal to 0")

	stored := r.DeepCopy()
	stored.ObjectMeta = storedMeta(r.Name, "default")
	respaced := stored.DeepCopy()
	respaced.Data.Raw = []byte(`{ "spec": {"template": {"$patch": "replace"}} }`)
	respaced.Revision = 2
	wantErrors(t, s.ValidateUpdate(respaced, stored))

	changed := stored.DeepCopy()
	changed.Data.Raw = []byte(`{"spec":{}}`)
	wantErrors(t, s.ValidateUpdate(changed, stored), `data: Invalid value: {"spec":{}}: field is immutable`)
}
