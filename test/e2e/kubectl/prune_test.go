package kubectl

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// pruneSetYAML holds one object of each namespaced kind in kubectl's
// default prune allowlist, all labelled app=prune.
const pruneSetYAML = `apiVersion: v1
kind: ConfigMap
metadata: {name: keep, labels: {app: prune}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm, labels: {app: prune}}
---
apiVersion: v1
kind: Secret
metadata: {name: sec, labels: {app: prune}}
---
apiVersion: v1
kind: Service
metadata: {name: svc, labels: {app: prune}}
spec: {ports: [{port: 80}], selector: {app: web}}
---
apiVersion: v1
kind: Endpoints
metadata: {name: ep, labels: {app: prune}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: pvc, labels: {app: prune}}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: v1
kind: Pod
metadata: {name: pod, labels: {app: prune}}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: rc, labels: {app: prune}}
spec: {replicas: 0, selector: {rc: rc}, template: {metadata: {labels: {rc: rc}}, spec: {containers: [{name: c, image: nginx}]}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: deploy, labels: {app: prune}}
spec: {replicas: 1, selector: {matchLabels: {d: deploy}}, template: {metadata: {labels: {d: deploy}}, spec: {containers: [{name: c, image: nginx}]}}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs, labels: {app: prune}}
spec: {replicas: 0, selector: {matchLabels: {r: rs}}, template: {metadata: {labels: {r: rs}}, spec: {containers: [{name: c, image: nginx}]}}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: sts, labels: {app: prune}}
spec: {replicas: 0, serviceName: sts, selector: {matchLabels: {s: sts}}, template: {metadata: {labels: {s: sts}}, spec: {containers: [{name: c, image: nginx}]}}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ds, labels: {app: prune}}
spec: {selector: {matchLabels: {x: ds}}, template: {metadata: {labels: {x: ds}}, spec: {containers: [{name: c, image: nginx}]}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: job, labels: {app: prune}}
spec: {suspend: true, template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj, labels: {app: prune}}
spec: {schedule: "0 0 1 1 *", jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: ing, labels: {app: prune}}
spec: {defaultBackend: {service: {name: svc, port: {number: 80}}}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: hpa, labels: {app: prune}}
spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: deploy}, minReplicas: 1, maxReplicas: 3}
`

const keepOnlyYAML = `apiVersion: v1
kind: ConfigMap
metadata: {name: keep, labels: {app: prune}}
`

// TestApplyPruneDefaultAllowlist applies one object of every kind in
// kubectl's default prune allowlist, then prunes them all with a manifest
// that keeps one ConfigMap: kubectl discovers and lists each of those kinds
// through miniapi, so a kind it could not find would fail the command.
// The HPA is outside the allowlist and stays.
func TestApplyPruneDefaultAllowlist(t *testing.T) {
	t.Parallel()
	s := start(t)
	ok(t, s, "apply", "-f", manifest(t, "set.yaml", pruneSetYAML))

	res := ok(t, s, "apply", "--prune", "-l", "app=prune", "-f", manifest(t, "keep.yaml", keepOnlyYAML))
	var pruned []string
	for _, line := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		if name, found := strings.CutSuffix(line, " pruned"); found {
			pruned = append(pruned, name)
		}
	}
	slices.Sort(pruned)
	want := []string{
		"configmap/cm", "cronjob.batch/cj", "daemonset.apps/ds", "deployment.apps/deploy", "endpoints/ep",
		"ingress.networking.k8s.io/ing", "job.batch/job", "persistentvolumeclaim/pvc", "pod/pod",
		"replicaset.apps/rs", "replicationcontroller/rc", "secret/sec", "service/svc", "statefulset.apps/sts",
	}
	if !slices.Equal(pruned, want) {
		t.Errorf("pruned %q\nwant   %q\n%s", pruned, want, res)
	}
	if !strings.HasPrefix(res.Stdout, "configmap/keep unchanged\n") {
		t.Errorf("apply --prune: %s", res)
	}
	expectOut(t, s, "configmap/keep\nhorizontalpodautoscaler.autoscaling/hpa\n", "get", "configmaps,hpa", "-l", "app=prune", "-o", "name")
}

// TestGetAllListsKubesAllCategory: `kubectl get all` shows exactly the
// kinds in kube's "all" category (pods, services, replicationcontrollers,
// daemonsets, deployments, replicasets, statefulsets, HPAs, jobs and
// cronjobs), and nothing else it was given.
func TestGetAllListsKubesAllCategory(t *testing.T) {
	t.Parallel()
	s := start(t)
	ok(t, s, "create", "namespace", "all")
	ok(t, s, "-n", "all", "apply", "-f", manifest(t, "set.yaml", pruneSetYAML))
	want := "cronjob.batch/cj daemonset.apps/ds deployment.apps/deploy horizontalpodautoscaler.autoscaling/hpa job.batch/job " +
		"pod/pod replicaset.apps/rs replicationcontroller/rc service/svc statefulset.apps/sts"
	eventually(t, 20*time.Second, func() string {
		out := ok(t, s, "-n", "all", "get", "all", "-o", "name").Stdout
		var kinds []string
		for _, name := range strings.Fields(out) {
			// Objects the controllers made (the Deployment's ReplicaSet
			// and pod, the DaemonSet's pods) have generated names.
			if strings.HasPrefix(name, "pod/deploy-") || strings.HasPrefix(name, "replicaset.apps/deploy-") || strings.HasPrefix(name, "pod/ds-") {
				continue
			}
			kinds = append(kinds, name)
		}
		slices.Sort(kinds)
		if got := strings.Join(kinds, " "); got != want {
			return "get all -o name: " + got
		}
		return ""
	})
}
