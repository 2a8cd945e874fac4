package minictlwrite

import (
	"testing"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// The generator commands of issue 11 through both tools: create job |
// cronjob, run and autoscale. Each case compares what the tools print
// (stdout, stderr, exit code) and then what they stored.

// expectSameStored fails unless the objects the two tools made in their
// namespaces read back alike through kubectl (-o output, for example
// yaml or a jsonpath), after harness.Mask.
func expectSameStored(t *testing.T, s *harness.Server, output string, objects ...string) {
	t.Helper()
	for _, obj := range objects {
		k := s.MustRun(t, "kubectl", "get", obj, "-n", nsK, "-o", output)
		m := s.MustRun(t, "kubectl", "get", obj, "-n", nsM, "-o", output)
		if harness.Mask(k.Stdout) != harness.Mask(normalize(m.Stdout)) {
			t.Errorf("stored %s differs\n=== kubectl's\n%s\n=== minictl's\n%s", obj, k.Stdout, m.Stdout)
		}
	}
}

// TestCreateJobMatchesKubectl: --image with and without a command, --from
// a CronJob (annotation, labels, ownerReference), the dry-run modes and
// outputs, --save-config, and kubectl's errors.
func TestCreateJobMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	for _, ns := range []string{nsK, nsM} {
		s.MustRun(t, "kubectl", "create", "cronjob", "nightly", "-n", ns, "--image=busybox", "--schedule=0 3 * * *", "--", "backup")
		s.MustRun(t, "kubectl", "create", "deployment", "web", "-n", ns, "--image=nginx")
	}
	expectSame(t, s, "", "create", "job", "plain", "-n", "NS", "--image=busybox")
	expectSame(t, s, "", "create", "job", "cmd", "-n", "NS", "--image=busybox", "--", "date", "-u")
	expectSame(t, s, "", "create", "job", "saved", "-n", "NS", "--image=busybox", "--save-config", "-o", "jsonpath={.metadata.annotations}")
	expectSame(t, s, "", "create", "job", "manual", "-n", "NS", "--from=cronjob/nightly")
	expectSameMasked(t, s, harness.Mask, "create", "job", "manual2", "-n", "NS", "--from=cj/nightly", "--dry-run=client", "-o", "yaml")
	expectSameMasked(t, s, harness.Mask, "create", "job", "manual2", "-n", "NS", "--from=cronjob/nightly", "--dry-run=server", "-o", "json")
	expectSame(t, s, "", "create", "job", "dry", "-n", "NS", "--image=busybox", "--dry-run=client", "-o", "yaml", "--save-config", "--", "sh", "-c", "echo hi")
	expectSame(t, s, "", "create", "job", "dry", "--image=busybox", "--dry-run=client", "-o", "json")
	expectSame(t, s, "", "create", "job", "dry", "-n", "NS", "--image=busybox", "--dry-run=server")
	expectSame(t, s, "", "create", "job", "dry", "-n", "NS", "--image=busybox", "--dry-run=client", "-o", "name")
	// The Jobs run: compare them once both tools' have finished, so that
	// their status does not depend on when each is read.
	jobs := []string{"job/plain", "job/cmd", "job/saved", "job/manual"}
	for _, ns := range []string{nsK, nsM} {
		s.MustRun(t, "kubectl", append([]string{"wait", "--for=condition=Complete", "--timeout=60s", "-n", ns}, jobs...)...)
	}
	expectSameStored(t, s, "yaml", jobs...)

	for _, bad := range [][]string{
		{"plain", "--image=busybox"}, // AlreadyExists
		{"Bad_Name", "--image=busybox"},
		{"--image=busybox"},
		{"a", "b", "--image=busybox"},
		{"--image=busybox", "--", "x"},
		{"x"},
		{"x", "--image=busybox", "--from=cronjob/nightly"},
		{"x", "--from=cronjob/nightly", "--", "date"},
		{"x", "--from=cronjob/missing"},
		{"x", "--from=cronjob"},
		{"x", "--from=bogus/x"},
		{"x", "--from=deployment/web"},
		{"x", "--image=busybox", "--validate=bogus"},
		{"x", "--image=busybox", "--dry-run=bogus"},
	} {
		expectSameFails(t, s, "", append([]string{"create", "job", "-n", "NS"}, bad...)...)
	}
}

// TestCreateCronJobMatchesKubectl: the object kubectl builds (job template
// named after the CronJob, restartPolicy OnFailure unless --restart), the
// outputs, and the errors of the client and of the server's validation.
func TestCreateCronJobMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	expectSame(t, s, "", "create", "cronjob", "every5", "-n", "NS", "--image=busybox", "--schedule=*/5 3 29 2 *")
	expectSame(t, s, "", "create", "cj", "never", "-n", "NS", "--image=busybox", "--schedule=@yearly", "--restart=Never", "--", "date")
	expectSame(t, s, "", "create", "cj", "saved", "-n", "NS", "--image=busybox", "--schedule=0 0 29 2 *", "--save-config", "-o", "name")
	expectSame(t, s, "", "create", "cj", "dry", "-n", "NS", "--image=busybox", "--schedule=*/5 3 29 2 *", "--dry-run=client", "-o", "yaml", "--", "sh", "-c", "date")
	expectSame(t, s, "", "create", "cj", "dry", "--image=busybox", "--schedule=*/5 3 29 2 *", "--dry-run=client", "-o", "json", "--save-config")
	expectSameMasked(t, s, harness.Mask, "create", "cj", "dry", "-n", "NS", "--image=busybox", "--schedule=*/5 3 29 2 *", "--dry-run=server", "-o", "yaml")
	expectSameStored(t, s, "yaml", "cronjob/every5", "cronjob/never", "cronjob/saved")

	for _, bad := range [][]string{
		{"every5", "--image=busybox", "--schedule=* * * * *"}, // AlreadyExists
		{"x", "--image=busybox", "--schedule=bogus"},
		{"x", "--image=busybox", "--schedule=* * * * *", "--restart=Always"},
		{"x", "--image=busybox", "--schedule=* * * * *", "--restart=Sometimes"},
		{"x", "--image=busybox"},
		{"x"},
		{"--image=busybox", "--schedule=* * * * *"},
		{"Bad_Name", "--image=busybox", "--schedule=* * * * *"},
	} {
		expectSameFails(t, s, "", append([]string{"create", "cronjob", "-n", "NS"}, bad...)...)
	}
}

// runPodFields are the parts of a Pod `run` decides; the rest (node, IPs)
// is the server's choice and differs between any two pods.
const runPodFields = "jsonpath={.metadata.labels} {.metadata.annotations} {.spec.containers} {.spec.restartPolicy} {.spec.dnsPolicy}"

// TestRunMatchesKubectl: the Pod run builds (label run=NAME unless
// --labels, args or --command, env, port, restart), --expose, the outputs,
// and kubectl's errors.
func TestRunMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	expectSame(t, s, "", "run", "plain", "-n", "NS", "--image=nginx")
	expectSame(t, s, "", "run", "full", "-n", "NS", "--image=nginx:1.27", "--port=80", "--env=A=1", "--env=B=x=y",
		"--labels=app=web,tier=fe", "--restart=Never", "--annotations=note=hi", "--image-pull-policy=IfNotPresent", "--", "serve", "--verbose")
	expectSame(t, s, "", "run", "cmd", "-n", "NS", "--image=busybox", "--command", "--privileged", "--", "sh", "-c", "sleep 1")
	expectSame(t, s, "", "run", "-n", "NS", "--image=busybox", "--", "dashed", "a", "b")
	expectSame(t, s, "", "run", "exposed", "-n", "NS", "--image=nginx", "--port=8080", "--expose")
	expectSame(t, s, "", "run", "saved", "-n", "NS", "--image=nginx", "--save-config", "-o", "name")
	expectSame(t, s, "", "run", "dry", "-n", "NS", "--image=nginx", "--dry-run=client", "-o", "yaml", "--save-config")
	expectSame(t, s, "", "run", "dry", "--image=nginx", "--dry-run=client", "-o", "json", "--env=A=1", "--", "a")
	expectSame(t, s, "", "run", "dry", "-n", "NS", "--image=nginx", "--port=80", "--expose", "--dry-run=client", "-o", "yaml")
	expectSame(t, s, "", "run", "dry", "-n", "NS", "--image=nginx", "--port=80", "--expose", "--dry-run=client")
	expectSameMasked(t, s, harness.Mask, "run", "dry", "-n", "NS", "--image=nginx", "--dry-run=server", "-o", "yaml", "--save-config")
	expectSameStored(t, s, runPodFields, "pod/plain", "pod/full", "pod/cmd", "pod/dashed", "pod/exposed", "pod/saved")
	expectSameStored(t, s, "jsonpath={.metadata.annotations} {.spec.selector} {.spec.ports}", "service/exposed")

	for _, bad := range [][]string{
		{"plain", "--image=nginx"}, // AlreadyExists
		{"exposed", "--image=nginx", "--port=8080", "--expose"},
		{"--image=nginx"},
		{"x"},
		{"x", "--image="},
		{"x", "--image=Bad:Image"},
		{"Bad_Name", "--image=nginx"},
		{"x", "--image=nginx", "--restart=Sometimes"},
		{"x", "--image=nginx", "--port=http"},
		{"x", "--image=nginx", "--port=99999"},
		{"x", "--image=nginx", "--expose"},
		{"x", "--image=nginx", "--env=1A=x"},
		{"x", "--image=nginx", "--env=noeq"},
		{"x", "--image=nginx", "--labels=a"},
		{"x", "--image=nginx", "--labels==b"},
		{"x", "--image=nginx", "--annotations=x", "--annotations==y"},
		{"x", "--image=nginx", "--image-pull-policy=Sometimes"},
		{"x", "--image=nginx", "--rm"},
		{"x", "--image=nginx", "-t"},
		{"x", "--image=nginx", "-i", "--dry-run=client"},
		{"x", "--image=nginx", "--dry-run=bogus"},
		{"x", "--image=nginx", "--pod-running-timeout=0s"},
	} {
		expectSameFails(t, s, "", append([]string{"run", "-n", "NS"}, bad...)...)
	}
}

// TestAutoscaleMatchesKubectl: the autoscaling/v2 HPA kubectl builds from
// --min, --max, --cpu, --memory and the deprecated --cpu-percent; its
// fallback to autoscaling/v1 (with kubectl's quirky messages when that is
// impossible); the outputs; and the errors.
func TestAutoscaleMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	for _, ns := range []string{nsK, nsM} {
		for _, d := range []string{"web", "api", "db", "cache", "queue", "taken"} {
			s.MustRun(t, "kubectl", "create", "deployment", d, "-n", ns, "--image=nginx")
		}
		s.MustRun(t, "kubectl", "create", "configmap", "cm", "-n", ns)
		s.MustRun(t, "kubectl", "run", "pod", "-n", ns, "--image=nginx")
		s.MustRun(t, "kubectl", "autoscale", "deployment", "taken", "-n", ns, "--max=2")
	}
	expectSame(t, s, "", "autoscale", "deployment", "web", "-n", "NS", "--max=5")
	expectSame(t, s, "", "autoscale", "deployment/api", "-n", "NS", "--min=2", "--max=5", "--cpu=80%", "--memory=200Mi", "--name=api-hpa")
	expectSame(t, s, "", "autoscale", "deploy", "db", "-n", "NS", "--max=3", "--cpu-percent=50")
	expectSame(t, s, "", "autoscale", "deploy", "cache", "queue", "-n", "NS", "--max=3", "--cpu=500", "--memory=512", "-o", "name")
	expectSame(t, s, "", "autoscale", "deploy", "web", "-n", "NS", "--max=3", "--cpu=500m", "--memory=1Gi", "--name=dry", "--dry-run=client", "-o", "yaml")
	expectSame(t, s, "", "autoscale", "deploy", "web", "--max=3", "--name=dry", "--dry-run=client", "-o", "json")
	expectSame(t, s, "", "autoscale", "deploy", "web", "-n", "NS", "--max=3", "--name=dry", "--dry-run=client")
	expectSame(t, s, "", "autoscale", "deploy", "web", "-n", "NS", "--max=3", "--name=dry", "--dry-run=server")
	expectSameMasked(t, s, harness.Mask, "autoscale", "deploy", "web", "-n", "NS", "--max=3", "--name=dry", "--dry-run=server", "-o", "yaml", "--save-config")
	expectSameStored(t, s, "yaml", "hpa/web", "hpa/api-hpa", "hpa/db", "hpa/cache", "hpa/queue")

	for _, bad := range [][]string{
		// An existing HPA: v2 fails, and the v1 fallback says why it cannot
		// be used, or (with --cpu=N%) fails on its own AlreadyExists.
		{"deploy", "taken", "--max=3"},
		{"deploy", "taken", "--max=3", "--cpu=50%"},
		{"deploy", "taken", "--max=3", "--cpu=50m"},
		{"deploy", "taken", "--max=3", "--cpu-percent=50"},
		{"deploy", "web", "--max=0"},
		{"deploy", "web"},
		{"deploy", "web", "--max=2", "--min=3"},
		{"deploy", "web", "--max=2", "--cpu-percent=3", "--cpu=5%"},
		{"deploy", "web", "--max=2", "--cpu=abc"},
		{"deploy", "web", "--max=2", "--cpu=-5%"},
		{"deploy", "web", "--max=2", "--memory=lots"},
		{"deploy", "web", "--max=2", "--name=Bad_Name"},
		{"deploy", "missing", "--max=2"},
		{"deploy", "missing", "taken", "--max=2", "--name=other"},
		{"deploy", "--max=2"},
		{"--max=2"},
		{"bogus", "x", "--max=2"},
		{"pod", "pod", "--max=2"},
		{"configmap", "cm", "--max=2"},
		{"deploy", "web", "--max=2", "--dry-run=bogus"},
	} {
		expectSameFails(t, s, "", append([]string{"autoscale", "-n", "NS"}, bad...)...)
	}
}

// TestSaveConfigMatchesKubectl: --save-config, shared by every generator,
// stores kubectl's last-applied annotation byte for byte.
func TestSaveConfigMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	for _, ns := range []string{nsK, nsM} {
		s.MustRun(t, "kubectl", "create", "deployment", "web", "-n", ns, "--image=nginx", "--port=80")
	}
	expectSame(t, s, "", "create", "configmap", "cm", "-n", "NS", "--from-literal=a=b", "--save-config")
	expectSame(t, s, "", "create", "secret", "generic", "sec", "-n", "NS", "--from-literal=a=b", "--save-config")
	expectSame(t, s, "", "create", "serviceaccount", "sa", "-n", "NS", "--save-config")
	expectSame(t, s, "", "expose", "deployment", "web", "-n", "NS", "--save-config")
	expectSame(t, s, "", "create", "cm", "dry", "-n", "NS", "--from-literal=a=b", "--save-config", "--dry-run=client", "-o", "yaml")
	expectSame(t, s, "", "expose", "deployment", "web", "-n", "NS", "--name=dry", "--save-config", "--dry-run=client", "-o", "yaml")
	expectSameStored(t, s, "jsonpath={.metadata.annotations}", "configmap/cm", "secret/sec", "serviceaccount/sa", "service/web")
}
