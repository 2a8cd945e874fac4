package cli

import (
	"fmt"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSaveConfigAnnotation(t *testing.T) {
	job := newJobObject("j", "", "busybox", nil)
	if err := saveConfig(false, job); err != nil || job.Annotations != nil {
		t.Fatalf("without --save-config nothing changes: %v %v", job.Annotations, err)
	}
	if err := saveConfig(true, job); err != nil {
		t.Fatal(err)
	}
	got := job.Annotations[lastAppliedAnnotation]
	// kubectl's encoder: Go field order (kind first), compact, newline.
	want := `{"kind":"Job","apiVersion":"batch/v1","metadata":{"name":"j"},"spec":{"template":{"metadata":{},` +
		`"spec":{"containers":[{"name":"j","image":"busybox","resources":{}}],"restartPolicy":"Never"}}},"status":{}}` + "\n"
	if got != want {
		t.Errorf("annotation\n got %q\nwant %q", got, want)
	}
	// A second pass (or an annotation copied from a template) is
	// refreshed, never nested, even without --save-config.
	job.Labels = map[string]string{"a": "b"}
	if err := saveConfig(false, job); err != nil {
		t.Fatal(err)
	}
	if a := job.Annotations[lastAppliedAnnotation]; strings.Contains(a, "last-applied") || !strings.Contains(a, `"labels":{"a":"b"}`) {
		t.Errorf("refreshed annotation: %s", a)
	}
}

func TestJobFromCronJob(t *testing.T) {
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "nightly", UID: "u1"}}
	cj.Spec.JobTemplate.Labels = map[string]string{"team": "a"}
	cj.Spec.JobTemplate.Annotations = map[string]string{"note": "x", instantiateAnnotation: "overridden"}
	cj.Spec.JobTemplate.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "busybox"}}
	job := newJobFromCronJob("manual", "ns", cj)
	if job.Namespace != "ns" || job.Labels["team"] != "a" || job.Annotations["note"] != "x" {
		t.Errorf("metadata: %+v", job.ObjectMeta)
	}
	// The template's own annotations win, as in kubectl.
	if job.Annotations[instantiateAnnotation] != "overridden" {
		t.Errorf("annotations: %v", job.Annotations)
	}
	ref := job.OwnerReferences
	if len(ref) != 1 || ref[0].Kind != "CronJob" || ref[0].UID != "u1" || ref[0].Controller == nil || !*ref[0].Controller || ref[0].BlockOwnerDeletion != nil {
		t.Errorf("ownerReferences: %+v", ref)
	}
	if job.Spec.Template.Spec.Containers[0].Image != "busybox" {
		t.Errorf("spec: %+v", job.Spec)
	}
}

func TestCronJobDefaults(t *testing.T) {
	cj := cronJobSpec{name: "c", image: "i", schedule: "* * * * *"}.object("")
	if p := cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy; p != corev1.RestartPolicyOnFailure {
		t.Errorf("restart policy %q", p)
	}
	if cj.Spec.JobTemplate.Name != "c" || cj.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Command != nil {
		t.Errorf("template: %+v", cj.Spec.JobTemplate)
	}
}

func TestRunParsing(t *testing.T) {
	if l, err := parseRunLabels("a=1,b=2"); err != nil || len(l) != 2 || l["b"] != "2" {
		t.Errorf("labels: %v %v", l, err)
	}
	if l, err := parseRunLabels(""); err != nil || l != nil {
		t.Errorf("no labels: %v %v", l, err)
	}
	for spec, msg := range map[string]string{"a": "unexpected label spec: a", "a=b=c": "unexpected label spec: a=b=c", "=b": "unexpected empty label key"} {
		if _, err := parseRunLabels(spec); err == nil || err.Error() != msg {
			t.Errorf("labels %q: %v", spec, err)
		}
	}
	if e, err := parseRunEnvs([]string{"A=1", "B=x=y", "C="}); err != nil || len(e) != 3 || e[1].Value != "x=y" || e[2].Value != "" {
		t.Errorf("envs: %v %v", e, err)
	}
	for _, bad := range []string{"noeq", "=v", "1A=x"} {
		if _, err := parseRunEnvs([]string{bad}); err == nil || err.Error() != "invalid env: "+bad {
			t.Errorf("env %q: %v", bad, err)
		}
	}
	if _, err := parseRunAnnotations([]string{"ok=1", "x", "=y"}); err == nil || err.Error() != "invalid annotations format: x, =y" {
		t.Errorf("annotations: %v", err)
	}
	if p, err := runRestartPolicy("", true); err != nil || p != corev1.RestartPolicyOnFailure {
		t.Errorf("interactive default: %v %v", p, err)
	}
	if _, err := runRestartPolicy("Sometimes", false); err == nil ||
		err.Error() != "invalid restart policy: Sometimes, valid values are: Always, OnFailure, Never" {
		t.Errorf("restart: %v", err)
	}
	if _, err := runPullPolicy("Sometimes"); err == nil ||
		err.Error() != "invalid image pull policy: Sometimes, valid values are: Always, IfNotPresent, Never" {
		t.Errorf("pull: %v", err)
	}
}

func TestRunPod(t *testing.T) {
	s := runSpec{name: "p", image: "nginx", port: "80", args: []string{"a", "b"}, restart: corev1.RestartPolicyNever}
	pod := s.pod(map[string]string{"run": "p"})
	c := pod.Spec.Containers[0]
	if c.Name != "p" || len(c.Args) != 2 || c.Command != nil || c.Ports[0].ContainerPort != 80 || pod.Spec.DNSPolicy != corev1.DNSClusterFirst {
		t.Errorf("pod: %+v", pod)
	}
	s.command = true
	if c := s.pod(nil).Spec.Containers[0]; len(c.Command) != 2 || c.Args != nil {
		t.Errorf("--command: %+v", c)
	}
	svc := s.service(map[string]string{"run": "p"})
	if svc.Labels != nil || svc.Spec.Selector["run"] != "p" || svc.Spec.Ports[0].TargetPort.IntVal != 80 {
		t.Errorf("service: %+v", svc)
	}
}

func TestParseMetricTarget(t *testing.T) {
	for in, want := range map[string]string{"70%": "Utilization 70", "500m": "AverageValue 500m", "500": "AverageValue 500m", "1.5": "AverageValue 1500u"} {
		got, err := parseMetricTarget(in, corev1.ResourceCPU)
		s := fmt.Sprintf("%s %s", got.typ, got.value.String())
		if got.typ == "Utilization" {
			s = fmt.Sprintf("%s %d", got.typ, got.utilization)
		}
		if err != nil || s != want {
			t.Errorf("cpu %q: %s %v, want %s", in, s, err, want)
		}
	}
	if got, err := parseMetricTarget("512", corev1.ResourceMemory); err != nil || got.value.String() != "512Mi" {
		t.Errorf("memory 512: %v %v", got.value.String(), err)
	}
	for in, msg := range map[string]string{"": "empty input", "-5%": "invalid percentage value: -5", "x%": "invalid percentage value: x", "lots": "invalid resource cpu value: lots"} {
		if _, err := parseMetricTarget(in, corev1.ResourceCPU); err == nil || err.Error() != msg {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func TestAutoscaleHPAs(t *testing.T) {
	s := &autoscaleSpec{min: -1, max: 5, cpuPercent: 50, memory: "1Gi"}
	v2, err := s.hpaV2("web", "apps/v1", "Deployment", manifestTarget{Namespace: "ns", Enforce: true})
	if err != nil || v2.Name != "web" || v2.Namespace != "ns" || v2.Spec.MinReplicas != nil || len(v2.Spec.Metrics) != 2 {
		t.Fatalf("v2: %+v %v", v2, err)
	}
	if m := v2.Spec.Metrics[0].Resource; m.Name != corev1.ResourceCPU || *m.Target.AverageUtilization != 50 {
		t.Errorf("cpu metric: %+v", m)
	}
	if v, err := (&autoscaleSpec{max: 1}).hpaV2("web", "apps/v1", "Deployment", manifestTarget{}); err != nil || v.Spec.Metrics != nil || v.Namespace != "" {
		t.Errorf("no targets: %+v %v", v, err)
	}
	// kubectl's v1 fallback needs --cpu: without it, "empty input".
	if ok, err := s.v1Compatible(); ok || err == nil || err.Error() != "empty input" {
		t.Errorf("v1Compatible without --cpu: %v %v", ok, err)
	}
	s = &autoscaleSpec{max: 5, cpuPercent: -1, cpu: "60%"}
	if ok, err := s.v1Compatible(); !ok || err != nil {
		t.Errorf("v1Compatible with --cpu=60%%: %v %v", ok, err)
	}
	if v1 := s.hpaV1("web", "apps/v1", "Deployment", manifestTarget{}); v1.Spec.TargetCPUUtilizationPercentage != nil || v1.Spec.MaxReplicas != 5 {
		t.Errorf("v1: %+v", v1)
	}
	for _, c := range []struct {
		spec autoscaleSpec
		msg  string
	}{
		{autoscaleSpec{max: -1}, "--max=MAXPODS is required and must be at least 1, max: -1"},
		{autoscaleSpec{max: 2, min: 3}, "--max=MAXPODS must be larger or equal to --min=MINPODS, max: 2, min: 3"},
		{autoscaleSpec{max: 2, cpuPercent: 5, cpu: "5%"}, "--cpu-percent and --cpu are mutually exclusive"},
		{autoscaleSpec{max: 2, memory: "lots"}, "invalid resource memory value: lots"},
	} {
		if err := c.spec.validate(); err == nil || err.Error() != c.msg {
			t.Errorf("%+v: %v", c.spec, err)
		}
	}
}
