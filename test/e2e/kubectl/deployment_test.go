package kubectl

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// rsName matches a ReplicaSet of deployment web: web-<pod-template-hash>.
var rsName = regexp.MustCompile(`^web-[a-z0-9]{6,10}$`)

// podName matches a pod of deployment web: web-<hash>-<suffix>.
var podName = regexp.MustCompile(`^web-[a-z0-9]{6,10}-[a-z0-9]{5}$`)

// waitReady waits until deployment web reports replicas ready pods. It
// depends on the deployment, replicaset and kubelet controllers.
func waitReady(t *testing.T, s *harness.Server, name string, replicas int) {
	t.Helper()
	want := fmt.Sprintf("%d %d %d", replicas, replicas, replicas)
	eventually(t, 30*time.Second, func() string {
		got := jsonpath(t, s, "{.status.replicas} {.status.updatedReplicas} {.status.readyReplicas}", "get", "deploy", name)
		if got != want {
			return fmt.Sprintf("deployment %s status replicas/updated/ready = %q, want %q", name, got, want)
		}
		return ""
	})
}

// TestDeploymentWorkflow follows section 2 and 3 of the reference file:
// create deployment, get it as table, wide, name, json, yaml and jsonpath,
// then scale, label, annotate, patch and delete.
func TestDeploymentWorkflow(t *testing.T) {
	t.Parallel()
	s := start(t)

	expectOut(t, s, "deployment.apps/web created\n", "create", "deployment", "web", "--image=nginx", "--replicas=3")
	fails(t, s, "error: failed to create deployment: deployments.apps \"web\" already exists\n", "create", "deployment", "web", "--image=nginx")

	t.Run("get deploy", func(t *testing.T) {
		waitReady(t, s, "web", 3)
		expectTable(t, s, "NAME | READY | UP-TO-DATE | AVAILABLE | AGE\nweb | 3/3 | 3 | 3 | AGE\n", "get", "deploy")
		expectTable(t, s, "NAME | READY | UP-TO-DATE | AVAILABLE | AGE\nweb | 3/3 | 3 | 3 | AGE\n", "get", "deploy", "web")
		expectTable(t, s, "NAME | READY | UP-TO-DATE | AVAILABLE | AGE | CONTAINERS | IMAGES | SELECTOR\nweb | 3/3 | 3 | 3 | AGE | nginx | nginx | app=web\n",
			"get", "deploy", "-o", "wide")
		expectOut(t, s, "deployment.apps/web\n", "get", "deploy", "-o", "name")
		expectOut(t, s, "1 1", "get", "deploy", "web", "-o", "jsonpath={.metadata.generation} {.status.observedGeneration}")
		expectOut(t, s, "1 1\n", "get", "deploy", "web", "-o", `jsonpath={.metadata.generation} {.status.observedGeneration}{"\n"}`)
		// The header is aligned exactly as against kube-apiserver.
		out := ok(t, s, "get", "deploy").Stdout
		if !strings.HasPrefix(out, "NAME   READY   UP-TO-DATE   AVAILABLE   AGE\nweb    3/3     3            3           ") {
			t.Errorf("layout differs from kube's:\n%s", out)
		}
	})

	t.Run("get deploy as yaml and json", func(t *testing.T) {
		var obj map[string]interface{}
		if err := yaml.Unmarshal([]byte(ok(t, s, "get", "deploy", "web", "-o", "yaml").Stdout), &obj); err != nil {
			t.Fatal(err)
		}
		checkDeployment(t, obj)
		obj = nil
		if err := json.Unmarshal([]byte(ok(t, s, "get", "deploy", "web", "-o", "json").Stdout), &obj); err != nil {
			t.Fatal(err)
		}
		checkDeployment(t, obj)
	})

	t.Run("get rs and pods", func(t *testing.T) {
		rows := table(t, ok(t, s, "get", "rs").Stdout)
		if len(rows) != 2 || join(rows[:1]) != "NAME | DESIRED | CURRENT | READY | AGE\n" || !rsName.MatchString(rows[1][0]) ||
			strings.Join(rows[1][1:], " ") != "3 3 3 AGE" {
			t.Fatalf("get rs:\n%s", join(rows))
		}
		hash := strings.TrimPrefix(rows[1][0], "web-")
		expectTable(t, s, fmt.Sprintf("NAME | DESIRED | CURRENT | READY | AGE | CONTAINERS | IMAGES | SELECTOR\nweb-%s | 3 | 3 | 3 | AGE | nginx | nginx | app=web,pod-template-hash=%s\n", hash, hash),
			"get", "rs", "-o", "wide")
		expectOut(t, s, "replicaset.apps/web-"+hash+"\n", "get", "rs", "-o", "name")

		rows = table(t, ok(t, s, "get", "pods").Stdout)
		if join(rows[:1]) != "NAME | READY | STATUS | RESTARTS | AGE\n" || len(rows) != 4 {
			t.Fatalf("get pods:\n%s", join(rows))
		}
		for _, r := range rows[1:] {
			if !podName.MatchString(r[0]) || !strings.HasPrefix(r[0], "web-"+hash+"-") || strings.Join(r[1:], " ") != "1/1 Running 0 AGE" {
				t.Errorf("pod row %v", r)
			}
		}
		rows = table(t, ok(t, s, "get", "pods", "-o", "wide").Stdout)
		if join(rows[:1]) != "NAME | READY | STATUS | RESTARTS | AGE | IP | NODE | NOMINATED NODE | READINESS GATES\n" {
			t.Errorf("wide header: %v", rows[0])
		}
		for _, r := range rows[1:] {
			if len(r) != 9 || r[5] == "<none>" || r[6] == "<none>" || r[7] != "<none>" || r[8] != "<none>" {
				t.Errorf("wide pod row %v", r)
			}
		}
		names := strings.Fields(ok(t, s, "get", "pods", "-o", "name").Stdout)
		if len(names) != 3 || !strings.HasPrefix(names[0], "pod/web-"+hash+"-") {
			t.Errorf("get pods -o name: %v", names)
		}
		var list struct {
			Kind  string `json:"kind"`
			Items []struct {
				Metadata struct{ Name string } `json:"metadata"`
			} `json:"items"`
		}
		if err := json.Unmarshal([]byte(ok(t, s, "get", "pods", "-l", "app=web", "-o", "json").Stdout), &list); err != nil || list.Kind != "List" || len(list.Items) != 3 {
			t.Errorf("get pods -o json: %v %+v", err, list)
		}
		if got := jsonpath(t, s, "{.items[*].status.phase}", "get", "pods"); got != "Running Running Running" {
			t.Errorf("pod phases %q", got)
		}
	})

	t.Run("get events", func(t *testing.T) {
		rows := table(t, ok(t, s, "get", "events").Stdout)
		if join(rows[:1]) != "LAST SEEN | TYPE | REASON | OBJECT | MESSAGE\n" {
			t.Fatalf("get events header %v", rows[0])
		}
		found := false
		for _, r := range rows[1:] {
			found = found || (len(r) == 5 && r[1] == "Normal" && r[2] == "ScalingReplicaSet" && r[3] == "deployment/web")
		}
		if !found {
			t.Errorf("no ScalingReplicaSet event for deployment/web:\n%s", join(rows))
		}
		wide := table(t, ok(t, s, "get", "events", "-o", "wide").Stdout)
		if join(wide[:1]) != "LAST SEEN | TYPE | REASON | OBJECT | SUBOBJECT | SOURCE | MESSAGE | FIRST SEEN | COUNT | NAME\n" {
			t.Errorf("get events -o wide header %v", wide[0])
		}
	})

	t.Run("scale", func(t *testing.T) {
		expectOut(t, s, "deployment.apps/web scaled\n", "scale", "deploy", "web", "--replicas=5")
		expectOut(t, s, "2", "get", "deploy", "web", "-o", "jsonpath={.metadata.generation}")
		expectOut(t, s, "deployment.apps/web scaled\n", "scale", "deploy", "web", "--current-replicas=5", "--replicas=5")
		fails(t, s, "error: Expected replicas to be 1, was 5\n", "scale", "deploy", "web", "--current-replicas=1", "--replicas=2")
		fails(t, s, "Error from server (NotFound): deployments.apps \"nope\" not found\n", "scale", "deploy", "nope", "--replicas=2")
		waitReady(t, s, "web", 5)
		expectTable(t, s, "NAME | READY | UP-TO-DATE | AVAILABLE | AGE\nweb | 5/5 | 5 | 5 | AGE\n", "get", "deploy", "web")
	})

	t.Run("label annotate patch", func(t *testing.T) {
		expectOut(t, s, "deployment.apps/web labeled\n", "label", "deploy", "web", "tier=front")
		expectOut(t, s, "deployment.apps/web annotated\n", "annotate", "deploy", "web", "note=x")
		expectOut(t, s, "front x", "get", "deploy", "web", "-o", "jsonpath={.metadata.labels.tier} {.metadata.annotations.note}")

		expectOut(t, s, "deployment.apps/web patched\n", "patch", "deploy", "web", "-p", `{"spec":{"replicas":3}}`)
		expectOut(t, s, "deployment.apps/web patched\n", "patch", "deploy", "web", "--type=merge", "-p", `{"spec":{"replicas":4}}`)
		expectOut(t, s, "4", "get", "deploy", "web", "-o", "jsonpath={.spec.replicas}")
		expectOut(t, s, "deployment.apps/web patched\n", "patch", "deploy", "web", "--type=json", "-p", `[{"op":"replace","path":"/spec/replicas","value":2}]`)
		expectOut(t, s, "2", "get", "deploy", "web", "-o", "jsonpath={.spec.replicas}")
		// Strategic merge keeps the other containers, merged by name; as in
		// Kubernetes, the patch's new entries come first.
		expectOut(t, s, "deployment.apps/web patched\n", "patch", "deploy", "web", "-p",
			`{"spec":{"template":{"spec":{"containers":[{"name":"side","image":"busybox"}]}}}}`)
		expectOut(t, s, "side nginx", "get", "deploy", "web", "-o", "jsonpath={.spec.template.spec.containers[*].name}")
		// kubectl says "no change" when the object it read before patching
		// equals the answer, so the rollout the template change started
		// must be over: otherwise the controller may write status between
		// kubectl's read and its patch.
		eventually(t, 60*time.Second, func() string {
			want := "2 2 2 2 NewReplicaSetAvailable"
			got := jsonpath(t, s, `{.status.replicas} {.status.updatedReplicas} {.status.availableReplicas} {.spec.replicas} {.status.conditions[?(@.type=="Progressing")].reason}`, "get", "deploy", "web")
			if got != want {
				return fmt.Sprintf("rollout not settled: %q, want %q", got, want)
			}
			return ""
		})
		expectOut(t, s, "deployment.apps/web patched (no change)\n", "patch", "deploy", "web", "--type=merge", "-p", `{"spec":{"replicas":2}}`)
	})

	t.Run("errors", func(t *testing.T) {
		fails(t, s, "Error from server (NotFound): deployments.apps \"nope\" not found\n", "get", "deploy", "nope")
		fails(t, s, "Error from server (NotFound): deployments.apps \"nope\" not found\n", "get", "deploy", "nope", "-o", "name")
		fails(t, s, "Error from server (NotFound): pods \"nope\" not found\n", "get", "pods", "nope")
		fails(t, s, "error: the server doesn't have a resource type \"nosuchresource\"\n", "get", "nosuchresource")
		res := s.Run("kubectl", "", "get", "pods", "-n", "nosuchns")
		if res.ExitCode != 0 || res.Stdout != "" || res.Stderr != "No resources found in nosuchns namespace.\n" {
			t.Errorf("get pods -n nosuchns: %s", res)
		}
	})

	t.Run("delete", func(t *testing.T) {
		expectOut(t, s, "deployment.apps/tmp created\n", "create", "deployment", "tmp", "--image=nginx", "--replicas=2")
		expectOut(t, s, "deployment.apps \"tmp\" deleted from default namespace\n", "delete", "deploy", "tmp")
		fails(t, s, "Error from server (NotFound): deployments.apps \"tmp\" not found\n", "get", "deploy", "tmp")
		// The garbage collector removes what the deployment owned.
		eventually(t, 30*time.Second, func() string {
			res := s.Run("kubectl", "", "get", "rs,pods", "-l", "app=tmp")
			if res.Stderr != "No resources found in default namespace.\n" {
				return "replicasets or pods of tmp remain: " + res.String()
			}
			return ""
		})
	})
}

// checkDeployment checks the fields kube-apiserver defaults and sets, in a
// decoded `get deploy web -o yaml|json`.
func checkDeployment(t *testing.T, obj map[string]interface{}) {
	t.Helper()
	b, _ := json.Marshal(obj)
	for _, want := range []string{
		`"apiVersion":"apps/v1"`, `"kind":"Deployment"`, `"name":"web"`, `"namespace":"default"`, `"generation":1`,
		`"labels":{"app":"web"}`, `"progressDeadlineSeconds":600`, `"revisionHistoryLimit":10`,
		`"rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"}`, `"imagePullPolicy":"Always"`,
		`"terminationMessagePath":"/dev/termination-log"`, `"dnsPolicy":"ClusterFirst"`, `"schedulerName":"default-scheduler"`,
		`"observedGeneration":1`, `"deployment.kubernetes.io/revision":"1"`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("deployment lacks %s:\n%s", want, b)
		}
	}
}
