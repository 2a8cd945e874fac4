package kubectl

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// The Job and CronJob of reference sections 8 and 9, as kubectl 1.37 sees
// them against kube-apiserver.

const jobYAML = `apiVersion: batch/v1
kind: Job
metadata:
  name: pi
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: pi
        image: perl
        command: ["perl", "-e", "print 1"]
`

const badJobYAML = `apiVersion: batch/v1
kind: Job
metadata:
  name: bad
spec:
  template:
    spec:
      restartPolicy: Always
      containers:
      - name: c
        image: busybox
`

const negativeParallelismYAML = `apiVersion: batch/v1
kind: Job
metadata:
  name: neg
spec:
  parallelism: -1
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: neg
        image: busybox
`

func TestKubectlJob(t *testing.T) {
	t.Parallel()
	// The pod runs 5s, so the Running state can be looked at.
	s := harness.Start(t, "--pod-ready-delay=100ms", "--pod-run-duration=5s")
	expectOut(t, s, "job.batch/pi created\n", "apply", "-f", manifest(t, "job.yaml", jobYAML))
	uid := jsonpath(t, s, "{.metadata.uid}", "get", "job", "pi")
	labels := fmt.Sprintf("batch.kubernetes.io/controller-uid=%s,batch.kubernetes.io/job-name=pi,controller-uid=%s,job-name=pi", uid, uid)
	if got := jsonpath(t, s, `{.metadata.labels}`, "get", "job", "pi"); got != fmt.Sprintf(`{"batch.kubernetes.io/controller-uid":"%s","batch.kubernetes.io/job-name":"pi","controller-uid":"%s","job-name":"pi"}`, uid, uid) {
		t.Errorf("job labels %s", got)
	}
	spec := jsonpath(t, s, `{.spec.backoffLimit} {.spec.completionMode} {.spec.completions} {.spec.manualSelector} {.spec.parallelism} {.spec.podReplacementPolicy} {.spec.selector.matchLabels} {.spec.suspend}`, "get", "job", "pi")
	if want := fmt.Sprintf(`6 NonIndexed 1 false 1 TerminatingOrFailed {"batch.kubernetes.io/controller-uid":"%s"} false`, uid); spec != want {
		t.Errorf("spec defaults:\n got %s\nwant %s", spec, want)
	}
	eventually(t, 10*time.Second, func() string {
		if got := jsonpath(t, s, "{.items[*].metadata.finalizers}", "get", "pods", "-l", "job-name=pi"); got != `["batch.kubernetes.io/job-tracking"]` {
			return "pod finalizers " + got
		}
		return ""
	})
	res := ok(t, s, "get", "pods", "-l", "job-name=pi", "--show-labels")
	if rows := table(t, res.Stdout); len(rows) != 2 || rows[1][len(rows[1])-1] != labels {
		t.Errorf("pods with labels:\n%s", res.Stdout)
	}
	// Running, then Complete once the simulated pod has run (2s).
	rows := table(t, ok(t, s, "get", "job", "-o", "wide").Stdout)
	if got := strings.Join(rows[0], " | "); got != "NAME | STATUS | COMPLETIONS | DURATION | AGE | CONTAINERS | IMAGES | SELECTOR" {
		t.Errorf("wide header %s", got)
	}
	if r := rows[1]; r[0] != "pi" || r[1] != "Running" || r[2] != "0/1" || r[5] != "pi" || r[6] != "perl" || r[7] != "batch.kubernetes.io/controller-uid="+uid {
		t.Errorf("running row %v", r)
	}
	eventually(t, 20*time.Second, func() string {
		r := table(t, ok(t, s, "get", "jobs").Stdout)[1]
		if r[1] != "Complete" || r[2] != "1/1" {
			return fmt.Sprintf("row %v", r)
		}
		return ""
	})
	if got := jsonpath(t, s, `{range .status.conditions[*]}{.type}={.status}/{.reason}/{.message};{end} succeeded={.status.succeeded} ready={.status.ready} terminating={.status.terminating} uncounted={.status.uncountedTerminatedPods}`, "get", "job", "pi"); got != "SuccessCriteriaMet=True/CompletionsReached/Reached expected number of succeeded pods;Complete=True/CompletionsReached/Reached expected number of succeeded pods; succeeded=1 ready=0 terminating=0 uncounted={}" {
		t.Errorf("final status %s", got)
	}
	pods := table(t, ok(t, s, "get", "pods", "-l", "job-name=pi").Stdout)
	if len(pods) != 2 || !regexp.MustCompile(`^pi-[a-z0-9]{5}$`).MatchString(pods[1][0]) || strings.Join(pods[1][1:], " | ") != "0/1 | Completed | 0 | AGE" {
		t.Errorf("completed pod rows %v", pods)
	}

	// Validation, in kube-apiserver's words.
	fails(t, s, "The Job \"bad\" is invalid: spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\"\n",
		"create", "-f", manifest(t, "job-bad.yaml", badJobYAML))
	fails(t, s, "The Job \"pi\" is invalid: spec.completions: Invalid value: 3: field is immutable\n",
		"patch", "job", "pi", "--type=merge", "-p", `{"spec":{"completions":3}}`)
	fails(t, s, "The Job \"neg\" is invalid: spec.parallelism: Invalid value: -1: must be greater than or equal to 0\n",
		"create", "-f", manifest(t, "neg.yaml", negativeParallelismYAML))
	res = s.Run("kubectl", "", "patch", "job", "pi", "--type=merge", "-p", `{"spec":{"template":{"spec":{"containers":[{"name":"pi","image":"perl:5"}]}}}}`)
	wantPrefix := fmt.Sprintf(`The Job "pi" is invalid: spec.template: Invalid value: {"labels":{"batch.kubernetes.io/controller-uid":"%s","batch.kubernetes.io/job-name":"pi","controller-uid":"%s","job-name":"pi"},"Spec":{"Volumes":null,"InitContainers":null,"Containers":[{"Name":"pi","Image":"perl:5","Command":null,`, uid, uid)
	if res.ExitCode != 1 || !strings.HasPrefix(res.Stderr, wantPrefix) || !strings.HasSuffix(res.Stderr, `"EvictionResponders":null}}: field is immutable`+"\n") {
		t.Errorf("template patch: %s", res)
	}
}

func TestKubectlCreateJobAndCronJob(t *testing.T) {
	t.Parallel()
	s := start(t)
	expectOut(t, s, "job.batch/hello created\n", "create", "job", "hello", "--image=busybox", "--", "date")
	// The reference's "* * * * *" would fire on the wall clock mid-test, so
	// a yearly schedule; firing is covered with a fake clock in
	// pkg/controllers/cronjob.
	expectOut(t, s, "cronjob.batch/tick created\n", "create", "cronjob", "tick", "--image=busybox", "--schedule=0 0 1 1 *", "--", "date")
	expectTable(t, s, "NAME | SCHEDULE | TIMEZONE | SUSPEND | ACTIVE | LAST SCHEDULE | AGE\ntick | 0 0 1 1 * | <none> | False | 0 | <none> | AGE\n", "get", "cronjobs")
	expectTable(t, s, "NAME | SCHEDULE | TIMEZONE | SUSPEND | ACTIVE | LAST SCHEDULE | AGE | CONTAINERS | IMAGES | SELECTOR\n"+
		"tick | 0 0 1 1 * | <none> | False | 0 | <none> | AGE | tick | busybox | <none>\n", "get", "cj", "-o", "wide")
	if got := jsonpath(t, s, "{.spec.concurrencyPolicy} {.spec.failedJobsHistoryLimit} {.spec.successfulJobsHistoryLimit} {.spec.suspend} {.status}", "get", "cronjob", "tick"); got != "Allow 1 3 false {}" {
		t.Errorf("cronjob defaults %q", got)
	}
	// A Job from the CronJob's template, as kubectl makes it.
	expectOut(t, s, "job.batch/manual created\n", "create", "job", "manual", "--from=cronjob/tick")
	if got := jsonpath(t, s, "{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {.metadata.annotations.cronjob\\.kubernetes\\.io/instantiate}", "get", "job", "manual"); got != "CronJob/tick manual" {
		t.Errorf("job from cronjob: %q", got)
	}
	eventually(t, 20*time.Second, func() string {
		out := ok(t, s, "get", "jobs", "hello", "manual", "-o", "jsonpath={range .items[*]}{.metadata.name}={.status.succeeded} {end}").Stdout
		if out != "hello=1 manual=1 " {
			return "jobs " + out
		}
		return ""
	})

	// Schedule, time zone and policy validation, in kube's words.
	fails(t, s, "error: failed to create cronjob: CronJob.batch \"bad\" is invalid: spec.schedule: Invalid value: \"61 * * * *\": end of range (61) above maximum (59): 61\n",
		"create", "cronjob", "bad", "--image=busybox", "--schedule=61 * * * *")
	fails(t, s, "error: failed to create cronjob: CronJob.batch \"bad\" is invalid: spec.schedule: Invalid value: \"not a schedule\": expected exactly 5 fields, found 3: [not a schedule]\n",
		"create", "cronjob", "bad", "--image=busybox", "--schedule=not a schedule")
	fails(t, s, "The CronJob \"tick\" is invalid: spec.timeZone: Invalid value: \"Mars/Olympus\": unknown time zone Mars/Olympus\n",
		"patch", "cronjob", "tick", "--type=merge", "-p", `{"spec":{"timeZone":"Mars/Olympus"}}`)
	fails(t, s, "The CronJob \"tick\" is invalid: spec.concurrencyPolicy: Unsupported value: \"Sometimes\": supported values: \"Allow\", \"Forbid\", \"Replace\"\n",
		"patch", "cronjob", "tick", "--type=merge", "-p", `{"spec":{"concurrencyPolicy":"Sometimes"}}`)
	expectOut(t, s, "cronjob.batch/tick patched\n", "patch", "cronjob", "tick", "--type=merge", "-p", `{"spec":{"suspend":true}}`)
}
