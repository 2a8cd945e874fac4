package registry

import (
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const piUID = "5249abb0-121d-4b71-a0e1-b02b05969740"

// newJob is job.yaml of the reference: one perl container, restartPolicy
// Never.
func newJob(name string) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: objMeta(name, "default"),
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "pi", Image: "perl", Command: []string{"perl", "-e", "print 1"}}},
		}}},
	}
}

// createdJob is newJob after the handlers and PrepareForCreate.
func createdJob(name string) *batchv1.Job {
	j := newJob(name)
	j.UID = piUID
	jobStrategy{}.PrepareForCreate(j)
	m := storedMeta(name, "default")
	m.UID, m.Labels = piUID, j.Labels
	j.ObjectMeta = m
	return j
}

func TestJobDefaultsAndGeneratedSelector(t *testing.T) {
	j := newJob("pi")
	j.UID = piUID
	j.Status.Active = 4
	jobStrategy{}.PrepareForCreate(j)
	s := j.Spec
	if *s.Completions != 1 || *s.Parallelism != 1 || *s.BackoffLimit != 6 || *s.CompletionMode != batchv1.NonIndexedCompletion ||
		*s.Suspend || *s.ManualSelector || *s.PodReplacementPolicy != batchv1.TerminatingOrFailed || j.Status.Active != 0 {
		t.Fatalf("defaults: %+v status %+v", s, j.Status)
	}
	want := map[string]string{
		"batch.kubernetes.io/controller-uid": piUID, "batch.kubernetes.io/job-name": "pi",
		"controller-uid": piUID, "job-name": "pi",
	}
	for name, labels := range map[string]map[string]string{"job": j.Labels, "template": s.Template.Labels} {
		if len(labels) != len(want) {
			t.Errorf("%s labels %v, want %v", name, labels, want)
		}
		for k, v := range want {
			if labels[k] != v {
				t.Errorf("%s label %s = %q, want %q", name, k, labels[k], v)
			}
		}
	}
	if got := metav1.FormatLabelSelector(s.Selector); got != "batch.kubernetes.io/controller-uid="+piUID {
		t.Errorf("selector %s", got)
	}
	if s.Template.Spec.Containers[0].ImagePullPolicy != corev1.PullAlways || *s.Template.Spec.TerminationGracePeriodSeconds != 30 {
		t.Errorf("pod template not defaulted: %+v", s.Template.Spec)
	}
	wantErrors(t, jobStrategy{}.Validate(j))
}

func TestJobKeepsItsOwnLabelsAndCompletionsNilWithParallelism(t *testing.T) {
	j := newJob("pi")
	j.UID = piUID
	j.Labels = map[string]string{"team": "a"}
	j.Spec.Parallelism = ptr(int32(3))
	jobStrategy{}.PrepareForCreate(j)
	if len(j.Labels) != 1 || j.Spec.Completions != nil || *j.Spec.Parallelism != 3 {
		t.Errorf("labels %v completions %v parallelism %d", j.Labels, j.Spec.Completions, *j.Spec.Parallelism)
	}
}

func TestJobManualSelector(t *testing.T) {
	j := newJob("pi")
	j.UID = piUID
	j.Spec.ManualSelector = ptr(true)
	j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}
	j.Spec.Template.Labels = map[string]string{"app": "x"}
	jobStrategy{}.PrepareForCreate(j)
	if len(j.Spec.Template.Labels) != 1 || len(j.Spec.Selector.MatchLabels) != 1 {
		t.Errorf("manual selector changed: template %v selector %v", j.Spec.Template.Labels, j.Spec.Selector)
	}
	wantErrors(t, jobStrategy{}.Validate(j))
}

func TestJobValidationMessages(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(j *batchv1.Job)
		want   []string
	}{
		{"restartPolicy Always", func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways }, []string{
			`spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`,
		}},
		{"negative parallelism", func(j *batchv1.Job) { j.Spec.Parallelism = ptr(int32(-1)) }, []string{
			"spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
		}},
		{"negative counts", func(j *batchv1.Job) {
			j.Spec.BackoffLimit, j.Spec.ActiveDeadlineSeconds, j.Spec.TTLSecondsAfterFinished = ptr(int32(-1)), ptr(int64(-2)), ptr(int32(-3))
		}, []string{
			"spec.activeDeadlineSeconds: Invalid value: -2: must be greater than or equal to 0",
			"spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0",
			"spec.ttlSecondsAfterFinished: Invalid value: -3: must be greater than or equal to 0",
		}},
		{"selector not generated", func(j *batchv1.Job) {
			j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": "other"}}
		}, []string{
			"spec.selector: Invalid value: {\"matchLabels\":{\"batch.kubernetes.io/controller-uid\":\"other\"}}: `selector` not auto-generated",
			"spec.template.metadata.labels: Invalid value: {\"batch.kubernetes.io/controller-uid\":\"" + piUID + "\",\"batch.kubernetes.io/job-name\":\"pi\",\"controller-uid\":\"" + piUID + "\",\"job-name\":\"pi\"}: `selector` does not match template `labels`",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := newJob("pi")
			j.UID = piUID
			c.mutate(j)
			jobStrategy{}.PrepareForCreate(j)
			wantErrors(t, jobStrategy{}.Validate(j), c.want...)
		})
	}
}

// referenceTemplateImmutable is what kube-apiserver 1.37 answered to a
// merge patch of the template's containers (reference section 8).
const referenceTemplateImmutable = `spec.template: Invalid value: {"labels":{"batch.kubernetes.io/controller-uid":"5249abb0-121d-4b71-a0e1-b02b05969740","batch.kubernetes.io/job-name":"pi","controller-uid":"5249abb0-121d-4b71-a0e1-b02b05969740","job-name":"pi"},"Spec":{"Volumes":null,"InitContainers":null,"Containers":[{"Name":"pi","Image":"perl:5","Command":null,"Args":null,"WorkingDir":"","Ports":null,"EnvFrom":null,"Env":null,"Resources":{"Limits":null,"Requests":null,"Claims":null},"ResizePolicy":null,"RestartPolicy":null,"RestartPolicyRules":null,"VolumeMounts":null,"VolumeDevices":null,"LivenessProbe":null,"ReadinessProbe":null,"StartupProbe":null,"Lifecycle":null,"TerminationMessagePath":"/dev/termination-log","TerminationMessagePolicy":"File","ImagePullPolicy":"IfNotPresent","SecurityContext":null,"Stdin":false,"StdinOnce":false,"TTY":false}],"EphemeralContainers":null,"RestartPolicy":"Never","TerminationGracePeriodSeconds":30,"ActiveDeadlineSeconds":null,"DNSPolicy":"ClusterFirst","NodeSelector":null,"ServiceAccountName":"","DeprecatedServiceAccount":"","AutomountServiceAccountToken":null,"NodeName":"","HostNetwork":false,"HostPID":false,"HostIPC":false,"ShareProcessNamespace":null,"SecurityContext":{"SELinuxOptions":null,"WindowsOptions":null,"RunAsUser":null,"RunAsGroup":null,"RunAsNonRoot":null,"SupplementalGroups":null,"SupplementalGroupsPolicy":null,"FSGroup":null,"Sysctls":null,"FSGroupChangePolicy":null,"SeccompProfile":null,"AppArmorProfile":null,"SELinuxChangePolicy":null},"ImagePullSecrets":null,"Hostname":"","Subdomain":"","Affinity":null,"SchedulerName":"default-scheduler","Tolerations":null,"HostAliases":null,"PriorityClassName":"","Priority":null,"DNSConfig":null,"ReadinessGates":null,"RuntimeClassName":null,"EnableServiceLinks":null,"PreemptionPolicy":null,"Overhead":null,"TopologySpreadConstraints":null,"SetHostnameAsFQDN":null,"OS":null,"HostUsers":null,"SchedulingGates":null,"ResourceClaims":null,"Resources":null,"HostnameOverride":null,"SchedulingGroup":null,"EvictionResponders":null}}: field is immutable`

func TestJobUpdateImmutableFieldsAsKube(t *testing.T) {
	old := createdJob("pi")
	j := old.DeepCopy()
	j.Spec.Template.Spec.Containers = []corev1.Container{{Name: "pi", Image: "perl:5"}}
	jobStrategy{}.PrepareForUpdate(j, old)
	errs := jobStrategy{}.ValidateUpdate(j, old)
	if len(errs) != 1 || errs[0].Error() != referenceTemplateImmutable {
		t.Fatalf("template change:\n got %v\nwant %s", errorStrings(errs), referenceTemplateImmutable)
	}
	j = old.DeepCopy()
	j.Spec.Completions = ptr(int32(3))
	wantErrors(t, jobStrategy{}.ValidateUpdate(j, old), "spec.completions: Invalid value: 3: field is immutable")

	j = old.DeepCopy()
	j.Spec.ActiveDeadlineSeconds = ptr(int64(30))
	wantErrors(t, jobStrategy{}.ValidateUpdate(j, old))
	if !(jobStrategy{}).GenerationChanged(j, old) {
		t.Error("a spec change does not move generation")
	}
}

func TestJobStatusUpdate(t *testing.T) {
	old := createdJob("pi")
	old.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
	j := old.DeepCopy()
	j.Spec.Parallelism = ptr(int32(5))
	j.Status.Conditions = nil
	j.Status.Succeeded = -1
	jobStrategy{}.PrepareForStatusUpdate(j, old)
	if *j.Spec.Parallelism != 1 {
		t.Error("a status write changed the spec")
	}
	errs := errorStrings(jobStrategy{}.ValidateStatusUpdate(j, old))
	if len(errs) != 2 || !strings.Contains(errs[0], "status.succeeded") || !strings.Contains(errs[1], "cannot disable the terminal Complete=True condition") {
		t.Errorf("status errors %v", errs)
	}
}
