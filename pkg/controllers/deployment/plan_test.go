package deployment

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var planNow = time.Unix(10000, 0)

// ownedRS is a ReplicaSet of deployment web running image, created at
// second created, with the revision annotation and the replica annotations
// of a Deployment of size desired allowing max pods.
func ownedRS(name, image string, spec, available int32, revision int, created int64, desired, max int32) *appsv1.ReplicaSet {
	r := rs(name, spec, available)
	r.Namespace, r.Labels = "default", map[string]string{"app": "web"}
	r.Spec.Template = nginxTemplate(image)
	r.CreationTimestamp = metav1.Unix(created, 0)
	yes := true
	r.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "d-uid", Controller: &yes}}
	r.Annotations = map[string]string{revisionAnnotation: strconv.Itoa(revision)}
	setReplicasAnnotations(r, desired, max)
	return r
}

// deploy is webDeployment (3 replicas, 25%/25%, history 10, deadline 600)
// changed by the given edits.
func deploy(edits ...func(*appsv1.Deployment)) *appsv1.Deployment {
	d := webDeployment()
	for _, e := range edits {
		e(d)
	}
	return d
}

func withImage(image string) func(*appsv1.Deployment) {
	return func(d *appsv1.Deployment) { d.Spec.Template = nginxTemplate(image) }
}

func withReplicas(n int32, surge, unavailable int) func(*appsv1.Deployment) {
	return func(d *appsv1.Deployment) {
		s, u := intstr.FromInt(surge), intstr.FromInt(unavailable)
		d.Spec.Replicas = &n
		d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: &s, MaxUnavailable: &u}
	}
}

func recreateStrategy(d *appsv1.Deployment) {
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
}

// withStatus sets the stored status: counts, then conditions given as
// type, status, reason and how many seconds before planNow they were set.
func withStatus(replicas, updated, available int32, conds ...string) func(*appsv1.Deployment) {
	return func(d *appsv1.Deployment) {
		d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: replicas, UpdatedReplicas: updated,
			ReadyReplicas: available, AvailableReplicas: available, UnavailableReplicas: max(replicas-available, 0)}
		for _, c := range conds {
			f := strings.Fields(c)
			ago, _ := strconv.Atoi(f[3])
			at := metav1.NewTime(planNow.Add(-time.Duration(ago) * time.Second))
			d.Status.Conditions = append(d.Status.Conditions, appsv1.DeploymentCondition{Type: appsv1.DeploymentConditionType(f[0]),
				Status: corev1.ConditionStatus(f[1]), Reason: f[2], LastUpdateTime: at, LastTransitionTime: at})
		}
	}
}

// summarize prints an action compactly for the table.
func summarize(a action) string {
	switch a.Kind {
	case actCreate:
		r := a.ReplicaSet
		return fmt.Sprintf("create %s replicas=%d revision=%s desired=%s max=%s", r.Name, replicas(r.Spec.Replicas),
			r.Annotations[revisionAnnotation], r.Annotations[desiredReplicasAnno], r.Annotations[maxReplicasAnno])
	case actScale:
		var parts []string
		for _, z := range a.Resizes {
			parts = append(parts, fmt.Sprintf("%s %d->%d (%d/%d)", z.ReplicaSet.Name, z.From, z.To, z.Desired, z.MaxReplicas))
		}
		return "scale " + strings.Join(parts, ", ")
	case actCleanup:
		var names []string
		for _, r := range a.Deletes {
			names = append(names, r.Name)
		}
		return "delete " + strings.Join(names, ", ")
	}
	return "none"
}

// summarizeStatus prints the counts and each condition's status/reason.
func summarizeStatus(st appsv1.DeploymentStatus) string {
	s := fmt.Sprintf("gen=%d replicas=%d updated=%d available=%d unavailable=%d", st.ObservedGeneration,
		st.Replicas, st.UpdatedReplicas, st.AvailableReplicas, st.UnavailableReplicas)
	for _, c := range st.Conditions {
		s += fmt.Sprintf(" %s=%s/%s", c.Type, c.Status, c.Reason)
	}
	return s
}

type planCase struct {
	name    string
	d       *appsv1.Deployment
	rss     []*appsv1.ReplicaSet
	pods    map[types.UID][]*corev1.Pod
	action  string // summarize(plan.Action)
	status  string // summarizeStatus(plan.Status)
	changes bool   // the plan has a status (or revision) to write
	requeue string // "" for none, else the delay
	// revision, if set, is the Deployment's revision annotation the plan records.
	revision string
}

func TestPlan(t *testing.T) {
	for _, tc := range append(rolloutPlanCases(), otherPlanCases()...) {
		t.Run(tc.name, func(t *testing.T) {
			in := passInput{Deployment: tc.d, ReplicaSets: tc.rss, Pods: tc.pods, Now: planNow}
			before := tc.d.DeepCopy()
			p := planFor(in)
			got := summarize(p.Action)
			if r := p.UpdateNewRS; r != nil {
				got = fmt.Sprintf("update %s revision=%s history=%s; %s", r.Name, r.Annotations[revisionAnnotation], r.Annotations[revisionHistoryAnno], got)
			}
			if got != tc.action {
				t.Errorf("action:\n got  %s\n want %s", got, tc.action)
			}
			if got := summarizeStatus(p.Status); got != tc.status {
				t.Errorf("status:\n got  %s\n want %s", got, tc.status)
			}
			if got := p.changes(tc.d); got != tc.changes {
				t.Errorf("changes = %v, want %v", got, tc.changes)
			}
			requeue := ""
			if p.Requeue {
				requeue = p.RequeueAfter.String()
			}
			if requeue != tc.requeue {
				t.Errorf("requeue %q, want %q", requeue, tc.requeue)
			}
			if tc.revision != "" && p.Revision != tc.revision {
				t.Errorf("revision %q, want %q", p.Revision, tc.revision)
			}
			if !equalDeployments(before, tc.d) {
				t.Error("planning changed the Deployment it was given")
			}
		})
	}
}

func equalDeployments(a, b *appsv1.Deployment) bool { return reflect.DeepEqual(a, b) }
