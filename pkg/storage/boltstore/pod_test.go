package boltstore_test

import "fmt"

// podJSON is a pod as the API server stores it (no resourceVersion), about
// 1 KB, the value size the benchmarks and the crash test write.
func podJSON(name string) string {
	return fmt.Sprintf(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":%q,"namespace":"default",`+
		`"uid":"6f1c7c1e-3c1b-4f3e-9a55-2b8a3c9d0e11","generation":1,"creationTimestamp":"2026-11-29T19:00:00Z",`+
		`"labels":{"app":"web","pod-template-hash":"7d4b9c8f5d"},"ownerReferences":[{"apiVersion":"apps/v1",`+
		`"kind":"ReplicaSet","name":"web-7d4b9c8f5d","uid":"0a8c1f7e-5d2b-4c6a-8e9f-1b2c3d4e5f60","controller":true,`+
		`"blockOwnerDeletion":true}]},"spec":{"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80,`+
		`"protocol":"TCP"}],"resources":{"requests":{"cpu":"100m","memory":"128Mi"}},"terminationMessagePath":"/dev/termination-log",`+
		`"terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always",`+
		`"terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","nodeName":"node-1","schedulerName":"default-scheduler",`+
		`"securityContext":{},"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},"status":{"phase":"Running",`+
		`"conditions":[{"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-29T19:00:01Z"}],`+
		`"hostIP":"10.0.0.1","podIP":"10.244.1.7","startTime":"2026-11-29T19:00:00Z","containerStatuses":[{"name":"web",`+
		`"state":{"running":{"startedAt":"2026-11-29T19:00:01Z"}},"ready":true,"restartCount":0,"image":"nginx:1.27",`+
		`"imageID":"","started":true}],"qosClass":"Burstable"}}`, name)
}
