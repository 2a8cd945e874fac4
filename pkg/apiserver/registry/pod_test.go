package registry

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func newPod(name string, containers ...corev1.Container) *corev1.Pod {
	if len(containers) == 0 {
		containers = []corev1.Container{container("nginx", "nginx")}
	}
	return &corev1.Pod{ObjectMeta: objMeta(name, "default"), Spec: corev1.PodSpec{Containers: containers}}
}

// admitPod runs a new pod through PrepareForCreate and the admission
// hooks, as the create handler does (the field manager between them).
func admitPod(t *testing.T, p *corev1.Pod) {
	t.Helper()
	podStrategy{}.PrepareForCreate(p)
	if _, err := pods(Options{}).Hooks.BeginCreate(context.Background(), p, false); err != nil {
		t.Fatal(err)
	}
}

func createdPod(t *testing.T, name string) *corev1.Pod {
	p := newPod(name)
	admitPod(t, p)
	p.ObjectMeta = storedMeta(name, "default")
	return p
}

func TestPodDefaultsOnCreate(t *testing.T) {
	p := newPod("p", corev1.Container{Name: "c", Image: "nginx:1.27", Ports: []corev1.ContainerPort{{ContainerPort: 80}}})
	p.Status.Phase = corev1.PodRunning
	p.Status.PodIP = "10.0.0.1"
	podStrategy{}.PrepareForCreate(p)
	s := p.Spec
	// Admission's fields come later, from the hooks.
	if s.ServiceAccountName != "" || s.Priority != nil || s.PreemptionPolicy != nil || s.Tolerations != nil {
		t.Errorf("admission fields before admission: sa %q priority %v policy %v tolerations %v", s.ServiceAccountName, s.Priority, s.PreemptionPolicy, s.Tolerations)
	}
	if _, err := pods(Options{}).Hooks.BeginCreate(context.Background(), p, false); err != nil {
		t.Fatal(err)
	}
	s = p.Spec
	if s.RestartPolicy != corev1.RestartPolicyAlways || s.DNSPolicy != corev1.DNSClusterFirst || s.SchedulerName != "default-scheduler" ||
		*s.TerminationGracePeriodSeconds != 30 || s.SecurityContext == nil || !*s.EnableServiceLinks {
		t.Errorf("spec defaults: %+v", s)
	}
	if s.ServiceAccountName != "default" || s.DeprecatedServiceAccount != "default" || *s.Priority != 0 || *s.PreemptionPolicy != corev1.PreemptLowerPriority {
		t.Errorf("admission defaults: sa %q/%q priority %v policy %v", s.ServiceAccountName, s.DeprecatedServiceAccount, s.Priority, s.PreemptionPolicy)
	}
	want := []corev1.Toleration{
		{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
		{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
	}
	if len(s.Tolerations) != 2 || s.Tolerations[0].Key != want[0].Key || s.Tolerations[1].Key != want[1].Key || *s.Tolerations[1].TolerationSeconds != 300 || s.Tolerations[0].Effect != corev1.TaintEffectNoExecute {
		t.Errorf("tolerations = %+v", s.Tolerations)
	}
	c := s.Containers[0]
	if c.ImagePullPolicy != corev1.PullIfNotPresent || c.TerminationMessagePath != "/dev/termination-log" ||
		c.TerminationMessagePolicy != corev1.TerminationMessageReadFile || c.Ports[0].Protocol != corev1.ProtocolTCP {
		t.Errorf("container defaults: %+v", c)
	}
	if p.Status.Phase != corev1.PodPending || p.Status.QOSClass != corev1.PodQOSBestEffort || p.Status.PodIP != "" {
		t.Errorf("status = %+v", p.Status)
	}
	if errs := (podStrategy{}).Validate(p); len(errs) != 0 {
		t.Errorf("defaulted pod invalid: %v", errs)
	}
}

func TestPodKeepsUserTolerationAndAccount(t *testing.T) {
	p := newPod("p")
	p.Spec.ServiceAccountName = "builder"
	p.Spec.Tolerations = []corev1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(5))}}
	admitPod(t, p)
	if p.Spec.ServiceAccountName != "builder" || len(p.Spec.Tolerations) != 2 || *p.Spec.Tolerations[0].TolerationSeconds != 5 || p.Spec.Tolerations[1].Key != "node.kubernetes.io/unreachable" {
		t.Errorf("sa %q tolerations %+v", p.Spec.ServiceAccountName, p.Spec.Tolerations)
	}
}

func TestImagePullPolicyDefault(t *testing.T) {
	cases := map[string]corev1.PullPolicy{
		"nginx":                          corev1.PullAlways,
		"nginx:latest":                   corev1.PullAlways,
		"nginx:1.27":                     corev1.PullIfNotPresent,
		"registry:5000/team/app":         corev1.PullAlways,
		"registry:5000/team/app:v2":      corev1.PullIfNotPresent,
		"nginx@sha256:0123456789abcdef0": corev1.PullIfNotPresent,
	}
	for image, want := range cases {
		if got := defaultPullPolicy(image); got != want {
			t.Errorf("defaultPullPolicy(%q) = %s, want %s", image, got, want)
		}
	}
}

func TestPodQOSClass(t *testing.T) {
	rl := func(cpu, mem string) corev1.ResourceList {
		l := corev1.ResourceList{}
		if cpu != "" {
			l[corev1.ResourceCPU] = resource.MustParse(cpu)
		}
		if mem != "" {
			l[corev1.ResourceMemory] = resource.MustParse(mem)
		}
		return l
	}
	cases := []struct {
		name string
		res  corev1.ResourceRequirements
		want corev1.PodQOSClass
	}{
		{"nothing", corev1.ResourceRequirements{}, corev1.PodQOSBestEffort},
		{"requests only", corev1.ResourceRequirements{Requests: rl("100m", "")}, corev1.PodQOSBurstable},
		{"limits only, requests defaulted", corev1.ResourceRequirements{Limits: rl("1", "1Gi")}, corev1.PodQOSGuaranteed},
		{"requests below limits", corev1.ResourceRequirements{Requests: rl("500m", "1Gi"), Limits: rl("1", "1Gi")}, corev1.PodQOSBurstable},
		{"cpu limit only", corev1.ResourceRequirements{Limits: rl("1", "")}, corev1.PodQOSBurstable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newPod("p", corev1.Container{Name: "c", Image: "i", Resources: tc.res})
			podStrategy{}.PrepareForCreate(p)
			if p.Status.QOSClass != tc.want {
				t.Errorf("QOSClass = %s, want %s", p.Status.QOSClass, tc.want)
			}
		})
	}
}

func TestPodValidation(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(p *corev1.Pod)
		want   []string
	}{
		{"no containers", func(p *corev1.Pod) { p.Spec.Containers = nil }, []string{"spec.containers: Required value"}},
		{"container without name and image", func(p *corev1.Pod) { p.Spec.Containers = []corev1.Container{{}} }, []string{
			"spec.containers[0].name: Required value", "spec.containers[0].image: Required value",
		}},
		{"duplicate and invalid container names", func(p *corev1.Pod) {
			p.Spec.Containers = []corev1.Container{container("a", "i"), container("a", "i"), container("B", "i")}
		}, []string{
			`spec.containers[1].name: Duplicate value: "a"`,
			`spec.containers[2].name: Invalid value: "B": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
		}},
		{"image with spaces", func(p *corev1.Pod) { p.Spec.Containers[0].Image = " nginx" }, []string{
			`spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace`,
		}},
		{"bad ports", func(p *corev1.Pod) {
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 70000, Protocol: "HTTP"}, {Name: "web"}}
		}, []string{
			"spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
			`spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`,
			"spec.containers[0].ports[1].containerPort: Required value",
		}},
		{"env without name", func(p *corev1.Pod) { p.Spec.Containers[0].Env = []corev1.EnvVar{{Value: "x"}} }, []string{
			"spec.containers[0].env[0].name: Required value",
		}},
		{"mount of unknown volume", func(p *corev1.Pod) {
			p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}
		}, []string{`spec.containers[0].volumeMounts[0].name: Not found: "data"`}},
		{"request above limit", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources = corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
				Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
			}
		}, []string{`spec.containers[0].resources.requests[cpu]: Invalid value: "2": must be less than or equal to cpu limit of 1`}},
		{"bad pull policy", func(p *corev1.Pod) { p.Spec.Containers[0].ImagePullPolicy = "Sometimes" }, []string{
			`spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"`,
		}},
		{"bad restart policy", func(p *corev1.Pod) { p.Spec.RestartPolicy = "Sometimes" }, []string{
			`spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`,
		}},
		{"bad active deadline", func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr(int64(0)) }, []string{
			"spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive",
		}},
		{"toleration seconds without NoExecute", func(p *corev1.Pod) {
			p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule, TolerationSeconds: ptr(int64(1))})
		}, []string{"spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set"}},
		{"name not a subdomain", func(p *corev1.Pod) { p.Name = "a_b" }, []string{
			`metadata.name: Invalid value: "a_b": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newPod("p")
			tc.mutate(p)
			podStrategy{}.PrepareForCreate(p)
			wantErrors(t, podStrategy{}.Validate(p), tc.want...)
		})
	}
}

func TestPodUpdate(t *testing.T) {
	s := podStrategy{}
	old := createdPod(t, "p")
	old.Status.Phase = corev1.PodRunning

	ok := old.DeepCopy()
	ok.Spec.Containers[0].Image = "nginx:2"
	ok.Spec.NodeName = "node-1" // binding: allowed once
	ok.Spec.ActiveDeadlineSeconds = ptr(int64(60))
	ok.Spec.Tolerations = append(ok.Spec.Tolerations, corev1.Toleration{Key: "x", Operator: corev1.TolerationOpExists})
	ok.Status = corev1.PodStatus{}
	s.PrepareForUpdate(ok, old)
	if ok.Status.Phase != corev1.PodRunning {
		t.Errorf("update did not keep status: %+v", ok.Status)
	}
	wantErrors(t, s.ValidateUpdate(ok, old))
	if !s.GenerationChanged(ok, old) {
		t.Error("image change did not move generation")
	}

	bound := ok.DeepCopy()
	bound.ResourceVersion = "6"
	moved := bound.DeepCopy()
	moved.Spec.NodeName = "node-2"
	errs := s.ValidateUpdate(moved, bound)
	if len(errs) != 1 || errs[0].Field != "spec" {
		t.Fatalf("nodeName change: %v", errs)
	}
	const prefix = "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n"
	if msg := errs[0].Error(); !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, `+ "nodeName": "node-2"`) {
		t.Errorf("message:\n%s", msg)
	}

	envChange := old.DeepCopy()
	envChange.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "A", Value: "1"}}
	wantErrorContaining(t, s.ValidateUpdate(envChange, old), "pod updates may not change fields other than")

	dropped := old.DeepCopy()
	dropped.Spec.Tolerations = nil
	wantErrors(t, s.ValidateUpdate(dropped, old), "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds")

	deadline := ok.DeepCopy()
	deadline.Spec.ActiveDeadlineSeconds = ptr(int64(120))
	wantErrors(t, s.ValidateUpdate(deadline, ok), "spec.activeDeadlineSeconds: Invalid value: 120: must be less than or equal to previous value")
}

func TestPodStatusUpdate(t *testing.T) {
	s := podStrategy{}
	old := createdPod(t, "p")
	upd := old.DeepCopy()
	upd.Spec.NodeName = "sneaky"
	upd.Labels = map[string]string{"l": "v"}
	upd.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.7"}
	s.PrepareForStatusUpdate(upd, old)
	if upd.Spec.NodeName != "" || upd.Labels["l"] != "v" || upd.Status.Phase != corev1.PodRunning || upd.Status.QOSClass != corev1.PodQOSBestEffort {
		t.Errorf("status update: nodeName %q labels %v status %+v", upd.Spec.NodeName, upd.Labels, upd.Status)
	}
	wantErrors(t, s.ValidateStatusUpdate(upd, old))
	if s.GenerationChanged(upd, old) {
		t.Error("status write moved generation")
	}
	qos := upd.DeepCopy()
	qos.Status.QOSClass = corev1.PodQOSGuaranteed
	wantErrors(t, s.ValidateStatusUpdate(qos, old), `status.qosClass: Invalid value: "Guaranteed": field is immutable`)
}

func TestPodGenerationChanged(t *testing.T) {
	old := createdPod(t, "p")
	cases := []struct {
		name   string
		mutate func(p *corev1.Pod)
		want   bool
	}{
		{"no-op", func(*corev1.Pod) {}, false},
		{"label", func(p *corev1.Pod) { p.Labels = map[string]string{"a": "b"} }, false},
		{"annotation", func(p *corev1.Pod) { p.Annotations = map[string]string{"a": "b"} }, false},
		{"status", func(p *corev1.Pod) { p.Status.Phase = corev1.PodRunning }, false},
		{"spec", func(p *corev1.Pod) { p.Spec.NodeName = "n" }, true},
	}
	for _, tc := range cases {
		p := old.DeepCopy()
		tc.mutate(p)
		if got := (podStrategy{}).GenerationChanged(p, old); got != tc.want {
			t.Errorf("%s: GenerationChanged = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestPodFieldSet(t *testing.T) {
	p := createdPod(t, "p")
	p.Spec.NodeName = "node-1"
	p.Status.Phase = corev1.PodRunning
	p.Status.PodIPs = []corev1.PodIP{{IP: "10.0.0.9"}}
	p.Status.NominatedNodeName = "node-2"
	want := map[string]string{
		"metadata.name": "p", "metadata.namespace": "default", "spec.nodeName": "node-1", "spec.restartPolicy": "Always",
		"spec.schedulerName": "default-scheduler", "spec.serviceAccountName": "default", "spec.hostNetwork": "false",
		"status.phase": "Running", "status.podIP": "10.0.0.9", "status.nominatedNodeName": "node-2",
	}
	got := podStrategy{}.FieldSet(p)
	if len(got) != len(want) {
		t.Errorf("FieldSet = %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("FieldSet[%s] = %q, want %q", k, got[k], v)
		}
	}
}
