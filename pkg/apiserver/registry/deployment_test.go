package registry

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func newDeployment(name string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: objMeta(name, "default"),
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{container("nginx", "nginx")}},
			},
		},
	}
}

func createdDeployment(name string) *appsv1.Deployment {
	d := newDeployment(name)
	deploymentStrategy{}.PrepareForCreate(d)
	d.ObjectMeta = storedMeta(name, "default")
	return d
}

func TestDeploymentDefaults(t *testing.T) {
	d := newDeployment("web")
	d.Status.Replicas = 7
	deploymentStrategy{}.PrepareForCreate(d)
	s := d.Spec
	if *s.Replicas != 1 || *s.RevisionHistoryLimit != 10 || *s.ProgressDeadlineSeconds != 600 {
		t.Errorf("replicas/revisionHistoryLimit/progressDeadlineSeconds = %d/%d/%d", *s.Replicas, *s.RevisionHistoryLimit, *s.ProgressDeadlineSeconds)
	}
	if s.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType ||
		s.Strategy.RollingUpdate.MaxSurge.String() != "25%" || s.Strategy.RollingUpdate.MaxUnavailable.String() != "25%" {
		t.Errorf("strategy = %+v", s.Strategy)
	}
	ps := s.Template.Spec
	if ps.RestartPolicy != corev1.RestartPolicyAlways || ps.DNSPolicy != corev1.DNSClusterFirst ||
		ps.SchedulerName != "default-scheduler" || *ps.TerminationGracePeriodSeconds != 30 || ps.SecurityContext == nil {
		t.Errorf("template spec defaults missing: %+v", ps)
	}
	if ps.EnableServiceLinks != nil || ps.Priority != nil || len(ps.Tolerations) != 0 || ps.ServiceAccountName != "" {
		t.Errorf("pod-only defaults leaked into the template: %+v", ps)
	}
	c := ps.Containers[0]
	if c.ImagePullPolicy != corev1.PullAlways || c.TerminationMessagePath != "/dev/termination-log" || c.TerminationMessagePolicy != corev1.TerminationMessageReadFile {
		t.Errorf("container defaults: %+v", c)
	}
	if d.Status.Replicas != 0 {
		t.Errorf("create kept client status: %+v", d.Status)
	}
	if errs := (deploymentStrategy{}).Validate(d); len(errs) != 0 {
		t.Errorf("defaulted deployment invalid: %v", errs)
	}
}

func TestDeploymentDefaultsKeepUserValues(t *testing.T) {
	d := newDeployment("web")
	d.Spec.Replicas = ptr(int32(0))
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	d.Spec.RevisionHistoryLimit = ptr(int32(0))
	deploymentStrategy{}.PrepareForCreate(d)
	if *d.Spec.Replicas != 0 || *d.Spec.RevisionHistoryLimit != 0 || d.Spec.Strategy.RollingUpdate != nil {
		t.Errorf("user values overwritten: %+v", d.Spec)
	}
}

// The 422 sample from kube-apiserver 1.37 (wire-samples.md), whole message.
func TestDeploymentInvalidMatchesKubeMessage(t *testing.T) {
	d := newDeployment("bad")
	d.Spec.Replicas = ptr(int32(-1))
	d.Spec.Selector.MatchLabels = map[string]string{"app": "x"}
	d.Spec.Template.Labels = map[string]string{"app": "y"}
	d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c"}}
	deploymentStrategy{}.PrepareForCreate(d)
	errs := deploymentStrategy{}.Validate(d)
	got := apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "bad", errs).Error()
	want := `Deployment.apps "bad" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, ` +
		"spec.template.metadata.labels: Invalid value: {\"app\":\"y\"}: `selector` does not match template `labels`, " +
		`spec.template.spec.containers[0].image: Required value]`
	if got != want {
		t.Errorf("message:\n got %s\nwant %s", got, want)
	}
}

func TestDeploymentValidation(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(d *appsv1.Deployment)
		want   []string
	}{
		{"kubectl sample bad-invalid.yaml", func(d *appsv1.Deployment) {
			d.Name = "bad-invalid"
			d.Spec.Replicas = ptr(int32(2))
			d.Spec.Selector = nil
			d.Spec.Template.Labels = map[string]string{"app": "bad"}
			d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c"}}
		}, []string{
			"spec.selector: Required value",
			"spec.template.metadata.labels: Invalid value: {\"app\":\"bad\"}: `selector` does not match template `labels`",
			"spec.template.spec.containers[0].image: Required value",
		}},
		{"kubectl sample bad-noname.yaml", func(d *appsv1.Deployment) {
			d.Name = ""
			d.Spec.Template.Labels = map[string]string{"app": "other"}
		}, []string{
			"metadata.name: Required value: name or generateName is required",
			"spec.template.metadata.labels: Invalid value: {\"app\":\"other\"}: `selector` does not match template `labels`",
		}},
		{"name not a DNS subdomain", func(d *appsv1.Deployment) { d.Name = "Web_1" }, []string{
			`metadata.name: Invalid value: "Web_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		}},
		{"namespace missing", func(d *appsv1.Deployment) { d.Namespace = "" }, []string{"metadata.namespace: Required value"}},
		{"empty selector", func(d *appsv1.Deployment) { d.Spec.Selector = &metav1.LabelSelector{} }, []string{
			"spec.selector: Invalid value: {}: empty selector is invalid for deployment",
		}},
		{"no containers", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers = nil }, []string{
			"spec.template.spec.containers: Required value",
		}},
		{"restartPolicy Never", func(d *appsv1.Deployment) { d.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever }, []string{
			`spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`,
		}},
		{"activeDeadlineSeconds", func(d *appsv1.Deployment) { d.Spec.Template.Spec.ActiveDeadlineSeconds = ptr(int64(5)) }, []string{
			"spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported",
		}},
		{"surge and unavailable both 0", func(d *appsv1.Deployment) {
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: ptr(intstr.FromInt32(0)), MaxUnavailable: ptr(intstr.FromString("0%"))}
		}, []string{"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"0%\": may not be 0 when `maxSurge` is 0"}},
		{"maxUnavailable over 100%", func(d *appsv1.Deployment) {
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxUnavailable: ptr(intstr.FromString("150%"))}
		}, []string{`spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%`}},
		{"maxSurge not a percentage", func(d *appsv1.Deployment) {
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: ptr(intstr.FromString("abc"))}
		}, []string{`spec.strategy.rollingUpdate.maxSurge: Invalid value: "abc": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`}},
		{"negative maxSurge", func(d *appsv1.Deployment) {
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: ptr(intstr.FromInt32(-1))}
		}, []string{"spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be greater than or equal to 0"}},
		{"Recreate with rollingUpdate", func(d *appsv1.Deployment) {
			d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{}}
		}, []string{
			"spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'",
		}},
		{"unknown strategy", func(d *appsv1.Deployment) {
			d.Spec.Strategy = appsv1.DeploymentStrategy{Type: "BlueGreen"}
		}, []string{`spec.strategy: Unsupported value: {"type":"BlueGreen"}: supported values: "Recreate", "RollingUpdate"`}},
		{"negative counters", func(d *appsv1.Deployment) {
			d.Spec.MinReadySeconds = -1
			d.Spec.RevisionHistoryLimit = ptr(int32(-2))
		}, []string{
			"spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0",
			"spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal to 0",
		}},
		{"progress deadline not above minReadySeconds", func(d *appsv1.Deployment) {
			d.Spec.MinReadySeconds = 600
		}, []string{"spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds"}},
		{"bad label", func(d *appsv1.Deployment) { d.Labels = map[string]string{"a b": "x"} }, []string{
			`metadata.labels: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDeployment("web")
			tc.mutate(d)
			deploymentStrategy{}.PrepareForCreate(d)
			wantErrors(t, deploymentStrategy{}.Validate(d), tc.want...)
		})
	}
}

func TestDeploymentUpdate(t *testing.T) {
	s := deploymentStrategy{}
	old := createdDeployment("web")
	old.Status.Replicas = 3

	upd := old.DeepCopy()
	upd.Status = appsv1.DeploymentStatus{}
	upd.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", "tier": "x"}}
	upd.Spec.Template.Labels["tier"] = "x"
	s.PrepareForUpdate(upd, old)
	if upd.Status.Replicas != 3 {
		t.Errorf("update did not keep status: %+v", upd.Status)
	}
	wantErrors(t, s.ValidateUpdate(upd, old),
		`spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"x"}}: field is immutable`)

	// A PUT without uid, resourceVersion, creationTimestamp (kubectl replace
	// of a file) is valid: kube fills them from the stored object.
	bare := old.DeepCopy()
	bare.ObjectMeta = objMeta("web", "default")
	s.PrepareForUpdate(bare, old)
	wantErrors(t, s.ValidateUpdate(bare, old))

	renamed := old.DeepCopy()
	renamed.UID = "other"
	wantErrorContaining(t, s.ValidateUpdate(renamed, old), `metadata.uid: Invalid value: "other": field is immutable`)
}

func TestDeploymentStatusUpdate(t *testing.T) {
	s := deploymentStrategy{}
	old := createdDeployment("web")
	old.Labels = map[string]string{"app": "web"}

	upd := old.DeepCopy()
	upd.Spec.Replicas = ptr(int32(9))
	upd.Labels = map[string]string{"changed": "yes"}
	upd.Annotations = map[string]string{"deployment.kubernetes.io/revision": "1"}
	upd.Status = appsv1.DeploymentStatus{Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 1, ObservedGeneration: 1}
	s.PrepareForStatusUpdate(upd, old)
	if *upd.Spec.Replicas != 1 || upd.Labels["app"] != "web" || upd.Annotations["deployment.kubernetes.io/revision"] != "1" || upd.Status.Replicas != 1 {
		t.Errorf("status update: spec %v labels %v annotations %v status %+v", *upd.Spec.Replicas, upd.Labels, upd.Annotations, upd.Status)
	}
	wantErrors(t, s.ValidateStatusUpdate(upd, old))

	bad := old.DeepCopy()
	bad.Status = appsv1.DeploymentStatus{Replicas: 1, ReadyReplicas: 2, AvailableReplicas: -1}
	wantErrors(t, s.ValidateStatusUpdate(bad, old),
		"status.availableReplicas: Invalid value: -1: must be greater than or equal to 0",
		"status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas")
}

func TestDeploymentGenerationChanged(t *testing.T) {
	old := createdDeployment("web")
	cases := []struct {
		name   string
		mutate func(d *appsv1.Deployment)
		want   bool
	}{
		{"no-op", func(*appsv1.Deployment) {}, false},
		{"spec replicas", func(d *appsv1.Deployment) { d.Spec.Replicas = ptr(int32(4)) }, true},
		{"template image", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:2" }, true},
		{"annotation", func(d *appsv1.Deployment) { d.Annotations = map[string]string{"a": "b"} }, true},
		{"label", func(d *appsv1.Deployment) { d.Labels = map[string]string{"a": "b"} }, false},
		{"status", func(d *appsv1.Deployment) { d.Status.ReadyReplicas = 1 }, false},
		{"nil vs empty annotations", func(d *appsv1.Deployment) { d.Annotations = map[string]string{} }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := old.DeepCopy()
			tc.mutate(d)
			if got := (deploymentStrategy{}).GenerationChanged(d, old); got != tc.want {
				t.Errorf("GenerationChanged = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDeploymentScale(t *testing.T) {
	s := deploymentStrategy{}
	d := createdDeployment("web")
	d.Spec.Replicas = ptr(int32(4))
	d.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"prod"}}}
	d.Status.Replicas = 5
	sc := s.Scale(d)
	if sc.Name != "web" || sc.Namespace != "default" || sc.UID != "u-1" || sc.ResourceVersion != "5" || !sc.CreationTimestamp.Equal(&d.CreationTimestamp) {
		t.Errorf("scale metadata: %+v", sc.ObjectMeta)
	}
	if sc.Kind != "Scale" || sc.APIVersion != "autoscaling/v1" {
		t.Errorf("scale type: %+v", sc.TypeMeta)
	}
	if sc.Spec.Replicas != 4 || sc.Status.Replicas != 5 || sc.Status.Selector != "app=web,env in (prod)" {
		t.Errorf("scale spec/status: %+v %+v", sc.Spec, sc.Status)
	}
	s.SetReplicas(d, 2)
	if *d.Spec.Replicas != 2 {
		t.Errorf("SetReplicas: %d", *d.Spec.Replicas)
	}
	sc.Spec.Replicas = -1
	wantErrors(t, deployments().Subresources["scale"].View.Validate(sc), "spec.replicas: Invalid value: -1: must be greater than or equal to 0")
}

func TestDeploymentFieldSet(t *testing.T) {
	got := deployments().Fields(createdDeployment("web"))
	if len(got) != 2 || got["metadata.name"] != "web" || got["metadata.namespace"] != "default" {
		t.Errorf("FieldSet = %v", got)
	}
}
