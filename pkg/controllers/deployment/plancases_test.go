package deployment

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func withRevision(r string) func(*appsv1.Deployment) {
	return func(d *appsv1.Deployment) { d.Annotations = map[string]string{revisionAnnotation: r} }
}

func withHistory(n int32) func(*appsv1.Deployment) {
	return func(d *appsv1.Deployment) { d.Spec.RevisionHistoryLimit = &n }
}

func paused(d *appsv1.Deployment) { d.Spec.Paused = true }

// hashName is the name kube gives the ReplicaSet of image's template.
func hashName(image string) string {
	tmpl := nginxTemplate(image)
	return "web-" + podTemplateHash(&tmpl, nil)
}

const (
	availableOK  = "Available True MinimumReplicasAvailable 100"
	availableLow = "Available False MinimumReplicasUnavailable 100"
	progressDone = "Progressing True NewReplicaSetAvailable 100"
	progressing  = "Progressing True ReplicaSetUpdated 100"
)

// rolloutPlanCases: RollingUpdate and Recreate steps.
func rolloutPlanCases() []planCase {
	return []planCase{{
		name:    "creates the new replicaset",
		d:       deploy(),
		action:  "create web-5fc9f4bf66 replicas=3 revision=1 desired=3 max=4",
		status:  "gen=1 replicas=0 updated=0 available=0 unavailable=3 Progressing=True/NewReplicaSetCreated Available=False/MinimumReplicasUnavailable",
		changes: true, revision: "1",
	}, {
		name: "rolling: old replicas go once new ones are available (maxUnavailable 1)",
		d:    deploy(withImage("nginx:new"), withReplicas(4, 1, 1), withRevision("2"), withStatus(5, 1, 4, availableOK, progressing)),
		rss: []*appsv1.ReplicaSet{ownedRS("web-old", "nginx:old", 4, 4, 1, 100, 4, 5),
			ownedRS("web-new", "nginx:new", 1, 0, 2, 200, 4, 5)},
		action:  "scale web-old 4->3 (4/5)",
		status:  "gen=1 replicas=5 updated=1 available=4 unavailable=1 Available=True/MinimumReplicasAvailable Progressing=True/ReplicaSetUpdated",
		requeue: "8m21s",
	}, {
		name: "rolling: unavailable old replicas go first, then available ones",
		d:    deploy(withImage("nginx:new"), withReplicas(4, 1, 1), withRevision("2"), withStatus(5, 1, 4, availableOK, progressing)),
		rss: []*appsv1.ReplicaSet{ownedRS("web-old", "nginx:old", 4, 3, 1, 100, 4, 5),
			ownedRS("web-new", "nginx:new", 1, 1, 2, 200, 4, 5)},
		action:  "scale web-old 4->3 (4/5), web-old 3->2 (4/5)",
		status:  "gen=1 replicas=5 updated=1 available=4 unavailable=1 Available=True/MinimumReplicasAvailable Progressing=True/ReplicaSetUpdated",
		requeue: "8m21s",
	}, {
		name: "rolling: the new replicaset grows within maxSurge",
		d:    deploy(withImage("nginx:new"), withReplicas(4, 1, 1), withRevision("2"), withStatus(4, 1, 4, availableOK, progressing)),
		rss: []*appsv1.ReplicaSet{ownedRS("web-old", "nginx:old", 3, 3, 1, 100, 4, 5),
			ownedRS("web-new", "nginx:new", 1, 1, 2, 200, 4, 5)},
		action:  "scale web-new 1->2 (4/5)",
		status:  "gen=1 replicas=4 updated=1 available=4 unavailable=0 Available=True/MinimumReplicasAvailable Progressing=True/ReplicaSetUpdated",
		requeue: "8m21s",
	}, {
		name:    "recreate: old replicasets go to 0 first",
		d:       deploy(recreateStrategy, withImage("nginx:new"), withRevision("1"), withStatus(3, 3, 3, availableOK, progressDone)),
		rss:     []*appsv1.ReplicaSet{ownedRS("web-old", "nginx:old", 3, 3, 1, 100, 3, 3)},
		action:  "scale web-old 3->0 (3/3)",
		status:  "gen=1 replicas=3 updated=0 available=3 unavailable=0 Available=True/MinimumReplicasAvailable Progressing=True/NewReplicaSetAvailable",
		changes: true,
	}, {
		name: "recreate: waits while an old pod runs",
		d:    deploy(recreateStrategy, withImage("nginx:new"), withRevision("1"), withStatus(0, 0, 0, availableLow, "Progressing True ReplicaSetUpdated 10")),
		rss:  []*appsv1.ReplicaSet{ownedRS("web-old", "nginx:old", 0, 0, 1, 100, 3, 3)},
		pods: map[types.UID][]*corev1.Pod{"uid-web-old": {{ObjectMeta: metav1.ObjectMeta{Name: "web-old-x"},
			Status: corev1.PodStatus{Phase: corev1.PodRunning}}}},
		action:  "none",
		status:  "gen=1 replicas=0 updated=0 available=0 unavailable=0 Available=False/MinimumReplicasUnavailable Progressing=True/ReplicaSetUpdated",
		requeue: "9m51s",
	}, {
		name:    "recreate: creates the new replicaset at full size once the old pods are gone",
		d:       deploy(recreateStrategy, withImage("nginx:new"), withRevision("1"), withStatus(0, 0, 0, availableLow, "Progressing True ReplicaSetUpdated 10")),
		rss:     []*appsv1.ReplicaSet{ownedRS("web-old", "nginx:old", 0, 0, 1, 100, 3, 3)},
		action:  "create " + hashName("nginx:new") + " replicas=3 revision=2 desired=3 max=3",
		status:  "gen=1 replicas=0 updated=0 available=0 unavailable=3 Available=False/MinimumReplicasUnavailable Progressing=True/NewReplicaSetCreated",
		changes: true, revision: "2",
	}, {
		name: "progress deadline exceeded",
		d:    deploy(withImage("nginx:new"), withRevision("2"), withStatus(4, 1, 3, availableOK, "Progressing True ReplicaSetUpdated 601")),
		rss: []*appsv1.ReplicaSet{ownedRS("web-old", "nginx:old", 3, 3, 1, 100, 3, 4),
			ownedRS("web-new", "nginx:new", 1, 0, 2, 200, 3, 4)},
		action:  "none",
		status:  "gen=1 replicas=4 updated=1 available=3 unavailable=1 Available=True/MinimumReplicasAvailable Progressing=False/ProgressDeadlineExceeded",
		changes: true,
	}, {
		name: "stuck before the deadline: look again when it passes",
		d:    deploy(withImage("nginx:new"), withRevision("2"), withStatus(4, 1, 3, availableOK, progressing)),
		rss: []*appsv1.ReplicaSet{ownedRS("web-old", "nginx:old", 3, 3, 1, 100, 3, 4),
			ownedRS("web-new", "nginx:new", 1, 0, 2, 200, 3, 4)},
		action:  "none",
		status:  "gen=1 replicas=4 updated=1 available=3 unavailable=1 Available=True/MinimumReplicasAvailable Progressing=True/ReplicaSetUpdated",
		requeue: "8m21s",
	}, {
		name: "rollback: the earlier replicaset gets the next revision, and grows",
		d:    deploy(withImage("nginx:old"), withRevision("2"), withStatus(3, 3, 3, availableOK, progressDone)),
		rss: []*appsv1.ReplicaSet{ownedRS("web-old", "nginx:old", 0, 0, 1, 100, 3, 4),
			ownedRS("web-new", "nginx:new", 3, 3, 2, 200, 3, 4)},
		action:  "update web-old revision=3 history=1; scale web-old 0->1 (3/4)",
		status:  "gen=1 replicas=3 updated=0 available=3 unavailable=0 Available=True/MinimumReplicasAvailable Progressing=True/NewReplicaSetAvailable",
		changes: true, revision: "3",
	}}
}

// otherPlanCases: pause, scaling, history, a finished rollout, deletion.
func otherPlanCases() []planCase {
	deleting := deploy(withRevision("1"), withStatus(3, 3, 3))
	deleting.DeletionTimestamp = &metav1.Time{Time: planNow}
	return []planCase{{
		name:    "paused: scales the replicaset it has, rolls nothing out",
		d:       deploy(paused, withImage("nginx:new"), withRevision("1"), withStatus(2, 2, 2, availableOK, progressDone)),
		rss:     []*appsv1.ReplicaSet{ownedRS("web-old", "nginx:old", 2, 2, 1, 100, 2, 3)},
		action:  "scale web-old 2->3 (3/4)",
		status:  "gen=1 replicas=2 updated=0 available=2 unavailable=0 Progressing=Unknown/DeploymentPaused Available=False/MinimumReplicasUnavailable",
		changes: true,
	}, {
		name: "scaled mid-rollout: each replicaset keeps its share",
		d:    deploy(withImage("nginx:new"), withReplicas(20, 3, 0), withRevision("2"), withStatus(13, 3, 10, availableOK, progressing)),
		rss: []*appsv1.ReplicaSet{ownedRS("web-old", "nginx:old", 10, 10, 1, 100, 10, 13),
			ownedRS("web-new", "nginx:new", 3, 0, 2, 200, 10, 13)},
		action:  "scale web-old 10->18 (20/23), web-new 3->5 (20/23)",
		status:  "gen=1 replicas=13 updated=3 available=10 unavailable=3 Progressing=True/ReplicaSetUpdated Available=False/MinimumReplicasUnavailable",
		changes: true,
	}, {
		name: "complete: old replicasets beyond revisionHistoryLimit go",
		d:    deploy(withHistory(1), withRevision("4"), withStatus(3, 3, 3, availableOK, progressDone)),
		rss: []*appsv1.ReplicaSet{ownedRS("web-3", "nginx:3", 0, 0, 3, 300, 3, 4), ownedRS("web-1", "nginx:1", 0, 0, 1, 100, 3, 4),
			ownedRS("web-2", "nginx:2", 0, 0, 2, 200, 3, 4), ownedRS("web-cur", "nginx", 3, 3, 4, 400, 3, 4)},
		action: "delete web-1, web-2",
		status: "gen=1 replicas=3 updated=3 available=3 unavailable=0 Available=True/MinimumReplicasAvailable Progressing=True/NewReplicaSetAvailable",
	}, {
		name:   "complete and in sync: nothing to do, nothing to write",
		d:      deploy(withRevision("1"), withStatus(3, 3, 3, availableOK, progressDone)),
		rss:    []*appsv1.ReplicaSet{ownedRS("web-cur", "nginx", 3, 3, 1, 100, 3, 4)},
		action: "none",
		status: "gen=1 replicas=3 updated=3 available=3 unavailable=0 Available=True/MinimumReplicasAvailable Progressing=True/NewReplicaSetAvailable",
	}, {
		name:    "being deleted: status only",
		d:       deleting,
		rss:     []*appsv1.ReplicaSet{ownedRS("web-cur", "nginx", 3, 3, 1, 100, 2, 3)},
		action:  "none",
		status:  "gen=1 replicas=3 updated=3 available=3 unavailable=0 Available=True/MinimumReplicasAvailable",
		changes: true,
	}}
}
