package kubectl

// PodDisruptionBudgets and eviction (kubectl drain), HorizontalPodAutoscalers
// (v2 and v1, kubectl autoscale), and the stored core kinds: each compared
// with what kube-apiserver 1.37 printed and answered
// (../shared/reference/kinds-crd-ssa-1.37.md, sections 15-17, 19, 20).
//
// One deliberate difference from the reference: miniapi runs a disruption
// controller (the reference's peer did not), so a budget's status is
// filled in (observedGeneration, the DisruptionAllowed condition).

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// trailingAge is an AGE cell at the end of a table line.
var trailingAge = regexp.MustCompile(`(?m)\b(\d+[smhdy])+$`)

// expectAged runs kubectl and compares its whole stdout with want, the
// AGE at the end of each line written as <age>.
func expectAged(t *testing.T, s *harness.Server, want string, args ...string) {
	t.Helper()
	res := ok(t, s, args...)
	if got := trailingAge.ReplaceAllString(res.Stdout, "<age>"); got != want {
		t.Errorf("kubectl %s:\n got:\n%s\nwant:\n%s", strings.Join(args, " "), got, want)
	}
}

const pdbYAML = `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web-pdb
spec:
  minAvailable: 1
  selector:
    matchLabels:
      app: web
`

// TestPodDisruptionBudgetKind: apply, the Table, the validation errors,
// and the status the disruption controller writes.
func TestPodDisruptionBudgetKind(t *testing.T) {
	t.Parallel()
	s := start(t)
	expectOut(t, s, "poddisruptionbudget.policy/web-pdb created\n", "apply", "-f", manifest(t, "pdb.yaml", pdbYAML))
	header := "NAME | MIN AVAILABLE | MAX UNAVAILABLE | ALLOWED DISRUPTIONS | AGE\n"
	expectTable(t, s, header+"web-pdb | 1 | N/A | 0 | AGE\n", "get", "poddisruptionbudgets")
	expectTable(t, s, header+"web-pdb | 1 | N/A | 0 | AGE\n", "get", "pdb", "-o", "wide")
	eventually(t, 10*time.Second, func() string {
		got := jsonpath(t, s, "{.status.observedGeneration} {.status.expectedPods} {.status.conditions[0].reason}", "get", "pdb", "web-pdb")
		if got != "1 0 InsufficientPods" {
			return "status: " + got
		}
		return ""
	})

	fails(t, s, `The PodDisruptionBudget "bad" is invalid: spec: Invalid value: {"MinAvailable":1,"Selector":{"matchLabels":{"app":"web"}},"MaxUnavailable":1,"UnhealthyPodEvictionPolicy":null}: minAvailable and maxUnavailable cannot be both set`+"\n",
		"create", "-f", manifest(t, "both.json", `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"bad"},
			"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"web"}},"maxUnavailable":1}}`))
	fails(t, s, "error: invalid format specified for min-available\n", "create", "pdb", "bad", "--selector=app=web", "--min-available=-1")
	fails(t, s, `error: failed to create poddisruptionbudgets: PodDisruptionBudget.policy "bad" is invalid: spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%`+"\n",
		"create", "pdb", "bad", "--selector=app=web", "--max-unavailable=150%")
	fails(t, s, `The PodDisruptionBudget "bad" is invalid: spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%`+"\n",
		"create", "-f", manifest(t, "pct.json", `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"bad"},
			"spec":{"selector":{"matchLabels":{"app":"web"}},"maxUnavailable":"150%"}}`))
}

// TestDrainEvictsAndRespectsBudget drains a node with kubectl drain: with
// a budget that allows no disruption the eviction is refused (429) and
// retried until --timeout ends the drain, the pod untouched; once the
// budget allows one, the pod is evicted (not deleted), and the
// Deployment's replacement runs on the other node.
func TestDrainEvictsAndRespectsBudget(t *testing.T) {
	t.Parallel()
	s := harness.Start(t, "--pod-ready-delay=100ms", "--nodes=2")
	ok(t, s, "create", "deployment", "web", "--image=nginx", "--replicas=2")
	ok(t, s, "create", "pdb", "web-pdb", "--selector=app=web", "--min-available=2")
	var victim, node string
	eventually(t, 30*time.Second, func() string {
		out := jsonpath(t, s, `{range .items[*]}{.metadata.name} {.spec.nodeName} {.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}`, "get", "pods", "-l", "app=web")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 2 || strings.Count(out, " True") != 2 {
			return "pods: " + out
		}
		f := strings.Fields(lines[0])
		victim, node = f[0], f[1]
		return ""
	})
	eventually(t, 10*time.Second, func() string {
		if got := jsonpath(t, s, "{.status.currentHealthy}/{.status.desiredHealthy}/{.status.disruptionsAllowed}", "get", "pdb", "web-pdb"); got != "2/2/0" {
			return "budget: " + got
		}
		return ""
	})

	blocked := s.Run("kubectl", "", "drain", node, "--ignore-daemonsets", "--timeout=3s")
	if blocked.ExitCode != 1 {
		t.Fatalf("blocked drain: %s", blocked)
	}
	wantRetry := fmt.Sprintf(`error when evicting pods/%q -n "default" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.`, victim)
	if !strings.Contains(blocked.Stderr, wantRetry) || !strings.Contains(blocked.Stderr, "global timeout reached: 3s") {
		t.Errorf("blocked drain stderr lacks the 429 retry and the timeout:\n%s", blocked)
	}
	if !strings.Contains(blocked.Stdout, "node/"+node+" cordoned") {
		t.Errorf("blocked drain did not cordon:\n%s", blocked)
	}
	if got := jsonpath(t, s, "{.metadata.name}", "get", "pod", victim); got != victim {
		t.Fatalf("a refused eviction removed %s", victim)
	}

	ok(t, s, "patch", "pdb", "web-pdb", "--type=merge", "-p", `{"spec":{"minAvailable":1}}`)
	eventually(t, 10*time.Second, func() string {
		if got := jsonpath(t, s, "{.status.disruptionsAllowed}", "get", "pdb", "web-pdb"); got != "1" {
			return "disruptionsAllowed " + got
		}
		return ""
	})
	drained := s.Run("kubectl", "", "drain", node, "--ignore-daemonsets", "--timeout=60s")
	if drained.ExitCode != 0 {
		t.Fatalf("drain: %s", drained)
	}
	for _, want := range []string{"node/" + node + " already cordoned", "evicting pod default/" + victim, "pod/" + victim + " evicted", "node/" + node + " drained"} {
		if !strings.Contains(drained.Stdout+drained.Stderr, want) {
			t.Errorf("drain output lacks %q:\n%s", want, drained)
		}
	}
	// Evicted, not deleted: the eviction was recorded in the budget (the
	// controller clears the entry once the pod is gone), and the
	// Deployment's replacement ran on the other node.
	eventually(t, 30*time.Second, func() string {
		out := jsonpath(t, s, `{range .items[*]}{.spec.nodeName}{"\n"}{end}`, "get", "pods", "-l", "app=web")
		if strings.Contains(out, node+"\n") || strings.Count(out, "\n") != 2 {
			return "pods on nodes: " + out
		}
		return ""
	})
	if got := jsonpath(t, s, "{.spec.unschedulable}", "get", "node", node); got != "true" {
		t.Errorf("drained node unschedulable = %q", got)
	}
}

const hpaYAML = `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: web
  minReplicas: 1
  maxReplicas: 5
  metrics:
  - type: Resource
    resource:
      name: cpu
      target:
        type: Utilization
        averageUtilization: 70
`

// TestHorizontalPodAutoscalerKind: v2 and v1 are the same objects,
// kubectl autoscale works, and the Table and errors are the reference's.
func TestHorizontalPodAutoscalerKind(t *testing.T) {
	t.Parallel()
	s := start(t)
	expectOut(t, s, "horizontalpodautoscaler.autoscaling/web created\n", "apply", "-f", manifest(t, "hpa.yaml", hpaYAML))
	header := "NAME | REFERENCE | TARGETS | MINPODS | MAXPODS | REPLICAS | AGE\n"
	expectTable(t, s, header+"web | Deployment/web | cpu: <unknown>/70% | 1 | 5 | 0 | AGE\n", "get", "horizontalpodautoscalers")
	expectTable(t, s, header+"web | Deployment/web | cpu: <unknown>/70% | 1 | 5 | 0 | AGE\n", "get", "hpa.v1.autoscaling")
	// kubectl prints the preferred version (v2) whatever it was asked,
	// as in the reference; the raw v1 object is v1's form.
	if v1 := hpaV1(t, s, "web"); v1.APIVersion != "autoscaling/v1" || v1.Spec.TargetCPUUtilizationPercentage == nil ||
		*v1.Spec.TargetCPUUtilizationPercentage != 70 || v1.Generation != 1 {
		t.Errorf("v1 view: %+v", v1)
	}
	if got := ok(t, s, "get", "hpa", "web", "-o", "yaml").Stdout; !strings.Contains(got, "status:\n  currentMetrics: null\n  desiredReplicas: 0\n") {
		t.Errorf("v2 status:\n%s", got)
	}

	fails(t, s, "The HorizontalPodAutoscaler \"web\" is invalid: spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas\n",
		"patch", "hpa", "web", "--type=merge", "-p", `{"spec":{"minReplicas":0}}`)
	fails(t, s, "The HorizontalPodAutoscaler \"web\" is invalid: \n* spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`\n* spec.maxReplicas: Required value\n",
		"patch", "hpa", "web", "--type=merge", "-p", `{"spec":{"maxReplicas":0}}`)
	fails(t, s, "The HorizontalPodAutoscaler \"bad\" is invalid: \n* spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`\n* spec.scaleTargetRef.apiVersion: Invalid value: \"\": apiVersion must specify API group\n",
		"create", "-f", manifest(t, "bad.yaml", "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: bad\nspec:\n  scaleTargetRef:\n    kind: Deployment\n    name: web\n  minReplicas: 5\n  maxReplicas: 2\n"))

	fails(t, s, "Error from server (NotFound): deployments.apps \"other\" not found\n", "autoscale", "deployment", "other", "--max=3", "--cpu=50%")
	fails(t, s, "Error from server (NotFound): horizontalpodautoscalers.autoscaling \"other\" not found\n", "get", "hpa", "other", "-o", "yaml")

	ok(t, s, "create", "deployment", "api", "--image=nginx")
	res := ok(t, s, "autoscale", "deployment", "api", "--min=2", "--max=5", "--cpu-percent=80")
	if res.Stdout != "horizontalpodautoscaler.autoscaling/api autoscaled\n" {
		t.Errorf("autoscale: %s", res)
	}
	if v1 := hpaV1(t, s, "api"); *v1.Spec.MinReplicas != 2 || v1.Spec.MaxReplicas != 5 || *v1.Spec.TargetCPUUtilizationPercentage != 80 {
		t.Errorf("autoscaled (v1): %+v", v1.Spec)
	}
	if got := jsonpath(t, s, "{.spec.metrics[0].resource.target.averageUtilization}", "get", "hpa", "api"); got != "80" {
		t.Errorf("autoscaled (v2): %q", got)
	}
}

// hpaV1 reads an autoscaler through autoscaling/v1.
func hpaV1(t *testing.T, s *harness.Server, name string) *autoscalingv1.HorizontalPodAutoscaler {
	t.Helper()
	raw := ok(t, s, "get", "--raw", "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/"+name).Stdout
	h := &autoscalingv1.HorizontalPodAutoscaler{}
	if err := json.Unmarshal([]byte(raw), h); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	return h
}

const pvcYAML = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes: ["ReadWriteOnce"]
  resources:
    requests:
      storage: 1Gi
`

// TestPersistentVolumeClaimKind: the reference's defaults, Table,
// immutability diff and validation (section 17).
func TestPersistentVolumeClaimKind(t *testing.T) {
	t.Parallel()
	s := start(t)
	expectOut(t, s, "persistentvolumeclaim/data created\n", "apply", "-f", manifest(t, "pvc.yaml", pvcYAML))
	if got := jsonpath(t, s, "{.metadata.finalizers} {.spec.volumeMode} {.status.phase}", "get", "pvc", "data"); got != `["kubernetes.io/pvc-protection"] Filesystem Pending` {
		t.Errorf("defaults: %q", got)
	}
	header := "NAME   STATUS        VOLUME   CAPACITY   ACCESS MODES   STORAGECLASS   VOLUMEATTRIBUTESCLASS   AGE\n"
	expectAged(t, s, "NAME   STATUS    VOLUME   CAPACITY   ACCESS MODES   STORAGECLASS   VOLUMEATTRIBUTESCLASS   AGE\n"+
		"data   Pending                                                     <unset>                 <age>\n", "get", "persistentvolumeclaims")
	wide := ok(t, s, "get", "pvc", "-o", "wide").Stdout
	if !strings.Contains(wide, "VOLUMEMODE") || !strings.Contains(wide, "Filesystem") {
		t.Errorf("get pvc -o wide:\n%s", wide)
	}

	fails(t, s, `The PersistentVolumeClaim "data" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims
@@ -1,6 +1,6 @@
 {
  "AccessModes": [
-  "ReadWriteOnce"
+  "ReadWriteMany"
  ],
  "Selector": null,
  "Resources": {

`, "patch", "pvc", "data", "--type=merge", "-p", `{"spec":{"accessModes":["ReadWriteMany"]}}`)
	fails(t, s, "The PersistentVolumeClaim \"bad\" is invalid: spec.accessModes: Required value: at least 1 access mode is required\n",
		"create", "-f", manifest(t, "bad1.yaml", "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: bad\nspec:\n  resources:\n    requests:\n      storage: 1Gi\n"))
	fails(t, s, "The PersistentVolumeClaim \"bad\" is invalid: spec.resources[storage]: Required value\n",
		"create", "-f", manifest(t, "bad2.yaml", "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: bad\nspec:\n  accessModes: [ReadWriteOnce]\n"))

	// A claim a running pod mounts stays Terminating (its protection
	// finalizer kept); once the pod is gone the claim goes too.
	ok(t, s, "apply", "-f", manifest(t, "user.yaml", `apiVersion: v1
kind: Pod
metadata:
  name: user
spec:
  containers:
  - name: c
    image: nginx
  volumes:
  - name: data
    persistentVolumeClaim:
      claimName: data
`))
	eventually(t, 30*time.Second, func() string {
		if got := jsonpath(t, s, "{.status.phase}", "get", "pod", "user"); got != "Running" {
			return "pod phase " + got
		}
		return ""
	})
	expectOut(t, s, "persistentvolumeclaim \"data\" deleted from default namespace\n", "delete", "pvc", "data", "--wait=false")
	expectAged(t, s, header+"data   Terminating                                                     <unset>                 <age>\n", "get", "pvc", "data")
	if got := jsonpath(t, s, "{.metadata.finalizers}", "get", "pvc", "data"); got != `["kubernetes.io/pvc-protection"]` {
		t.Errorf("finalizers of a claim in use: %s", got)
	}
	ok(t, s, "delete", "pod", "user")
	eventually(t, 30*time.Second, func() string {
		if res := s.Run("kubectl", "", "get", "pvc", "data"); res.ExitCode == 0 {
			return "claim still there: " + res.Stdout
		}
		return ""
	})
}

// TestQuotaLimitRangeAndStoredCoreKinds: ResourceQuota and LimitRange as
// in the reference (sections 19, 20), and PersistentVolumes, PodTemplates
// and ReplicationControllers stored with their Tables.
func TestQuotaLimitRangeAndStoredCoreKinds(t *testing.T) {
	t.Parallel()
	s := start(t)
	ok(t, s, "create", "namespace", "quota-demo")
	expectOut(t, s, "resourcequota/compute created\n", "apply", "-f", manifest(t, "quota.yaml", `apiVersion: v1
kind: ResourceQuota
metadata:
  name: compute
  namespace: quota-demo
spec:
  hard:
    pods: "2"
    requests.cpu: "1"
    limits.memory: 1Gi
    configmaps: "10"
`))
	expectAged(t, s, "NAME      REQUEST   LIMIT   AGE\ncompute                     <age>\n", "get", "resourcequotas", "-n", "quota-demo")
	expectOut(t, s, "{}", "get", "quota", "compute", "-n", "quota-demo", "-o", "jsonpath={.status}")
	fails(t, s, "The ResourceQuota \"compute\" is invalid: spec.hard[pods]: Invalid value: \"-1\": must be greater than or equal to 0\n",
		"patch", "quota", "compute", "-n", "quota-demo", "--type=merge", "-p", `{"spec":{"hard":{"pods":"-1"}}}`)
	expectOut(t, s, "resourcequota/compute patched\n", "patch", "quota", "compute", "-n", "quota-demo", "--type=merge", "-p", `{"spec":{"hard":{"bogus.example.com/x":"1"}}}`)
	fails(t, s, "The ResourceQuota \"compute\" is invalid: \n* spec.scopes: Invalid value: [\"NotAScope\"]: unsupported scope\n* spec.scopes: Invalid value: [\"NotAScope\"]: field is immutable\n",
		"patch", "quota", "compute", "-n", "quota-demo", "--type=merge", "-p", `{"spec":{"scopes":["NotAScope"]}}`)

	ok(t, s, "create", "namespace", "lr-demo")
	expectOut(t, s, "limitrange/defaults created\n", "apply", "-f", manifest(t, "limits.yaml", `apiVersion: v1
kind: LimitRange
metadata:
  name: defaults
  namespace: lr-demo
spec:
  limits:
  - type: Container
    default:
      cpu: 500m
      memory: 256Mi
    defaultRequest:
      cpu: 100m
    max:
      memory: 1Gi
`))
	expectOut(t, s, `{"cpu":"100m","memory":"256Mi"}`, "get", "limits", "defaults", "-n", "lr-demo", "-o", "jsonpath={.spec.limits[0].defaultRequest}")
	lr := ok(t, s, "get", "limitranges", "-n", "lr-demo").Stdout
	if !regexp.MustCompile(`^NAME\s+CREATED AT\ndefaults\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$`).MatchString(lr) {
		t.Errorf("get limitranges:\n%s", lr)
	}
	fails(t, s, "The LimitRange \"bad\" is invalid: \n* spec.limits[0].defaultRequest[memory]: Invalid value: \"2Gi\": default request value 2Gi is greater than max value 1Gi\n* spec.limits[0].default[memory]: Invalid value: \"1Gi\": default value 2Gi is greater than max value 1Gi\n",
		"create", "-f", manifest(t, "bad-lr.yaml", "apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: bad\n  namespace: lr-demo\nspec:\n  limits:\n  - type: Container\n    default:\n      memory: 2Gi\n    max:\n      memory: 1Gi\n"))
	fails(t, s, "The LimitRange \"bad\" is invalid: spec.limits[0].type: Invalid value: \"Thing\": must be a standard limit type or fully qualified\n",
		"create", "-f", manifest(t, "thing.yaml", "apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: bad\n  namespace: lr-demo\nspec:\n  limits:\n  - type: Thing\n    max:\n      memory: 1Gi\n"))

	ok(t, s, "apply", "-f", manifest(t, "stored.yaml", `apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv-1
spec:
  capacity:
    storage: 5Gi
  accessModes: [ReadWriteOnce]
  hostPath:
    path: /data
---
apiVersion: v1
kind: PodTemplate
metadata:
  name: tpl
template:
  metadata:
    labels:
      app: tpl
  spec:
    containers:
    - name: c
      image: nginx
---
apiVersion: v1
kind: ReplicationController
metadata:
  name: old
spec:
  replicas: 2
  template:
    metadata:
      labels:
        app: old
    spec:
      containers:
      - name: c
        image: nginx
`))
	expectAged(t, s, "NAME   CAPACITY   ACCESS MODES   RECLAIM POLICY   STATUS    CLAIM   STORAGECLASS   VOLUMEATTRIBUTESCLASS   REASON   AGE\n"+
		"pv-1   5Gi        RWO            Retain           Pending                          <unset>                          <age>\n", "get", "pv")
	expectTable(t, s, "NAME | CONTAINERS | IMAGES | POD LABELS\ntpl | c | nginx | app=tpl\n", "get", "podtemplates")
	expectTable(t, s, "NAME | DESIRED | CURRENT | READY | AGE\nold | 2 | 0 | 0 | AGE\n", "get", "rc")
	expectOut(t, s, "replicationcontroller/old scaled\n", "scale", "rc", "old", "--replicas=3")
	expectOut(t, s, "3 old", "get", "rc", "old", "-o", "jsonpath={.spec.replicas} {.spec.selector.app}")

	// A namespace holding these kinds (a protected claim included) is
	// emptied and goes.
	ok(t, s, "apply", "-n", "quota-demo", "-f", manifest(t, "pvc.yaml", pvcYAML))
	ok(t, s, "apply", "-n", "quota-demo", "-f", manifest(t, "hpa.yaml", hpaYAML))
	ok(t, s, "apply", "-n", "quota-demo", "-f", manifest(t, "pdb.yaml", pdbYAML))
	ok(t, s, "delete", "namespace", "quota-demo", "lr-demo", "--timeout=60s")
	if res := s.Run("kubectl", "", "get", "namespace", "quota-demo"); res.ExitCode == 0 {
		t.Errorf("namespace still there after delete: %s", res)
	}
}

// TestClusterInfoDump: kubectl cluster-info dump lists every kind it asks
// for (replicationcontrollers and daemonsets among them) and completes.
func TestClusterInfoDump(t *testing.T) {
	t.Parallel()
	s := start(t)
	ok(t, s, "create", "deployment", "web", "--image=nginx")
	dir := t.TempDir()
	res := s.Run("kubectl", "", "cluster-info", "dump", "--output-directory", dir)
	if _, err := os.Stat(filepath.Join(dir, "kube-system", "replication-controllers.json")); err != nil {
		t.Fatalf("no replication-controllers.json: %v\n%s", err, res)
	}
	if res.ExitCode != 0 {
		t.Fatalf("cluster-info dump: %s", res)
	}
}
