package printers

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The header, descriptions and cells of the reference's section 7.
func TestDaemonSetTable(t *testing.T) {
	labels := map[string]string{"app": "agent"}
	ds := &appsv1.DaemonSetList{Items: []appsv1.DaemonSet{{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", CreationTimestamp: created},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "busybox"}}},
			},
		},
	}}}
	header := []string{"Name/string/0/name", "Desired/integer/0", "Current/integer/0", "Ready/integer/0", "Up-to-date/integer/0",
		"Available/integer/0", "Node Selector/string/0", "Age/string/0", "Containers/string/1", "Images/string/1", "Selector/string/1"}
	docs := map[string]string{
		"Desired": "The total number of nodes that should be running the daemon ", "Current": "The number of nodes that are running at least 1 daemon pod a",
		"Ready": "numberReady is the number of nodes that should be running th", "Up-to-date": "The total number of nodes that are running updated daemon po",
		"Available": "The number of nodes that should be running the daemon pod an", "Node Selector": "NodeSelector is a selector which must be true for the pod to",
		"Selector": "A label query over pods that are managed by the daemon set. ",
	}
	checkTable(t, DaemonSets, ds, header, docs, `["agent",0,0,0,0,0,"\u003cnone\u003e","2s","agent","busybox","app=agent"]`)

	one := &ds.Items[0]
	one.Spec.Template.Spec.NodeSelector = map[string]string{"disk": "ssd"}
	one.Status = appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, NumberReady: 2, UpdatedNumberScheduled: 1, NumberAvailable: 2}
	checkTable(t, DaemonSets, one, header, nil, `["agent",3,3,2,1,2,"disk=ssd","2s","agent","busybox","app=agent"]`)
}

func TestControllerRevisionTable(t *testing.T) {
	yes := true
	r := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Name: "agent-759f6bbb99", CreationTimestamp: created, OwnerReferences: []metav1.OwnerReference{
			{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", UID: "u", Controller: &yes},
		}},
		Revision: 1,
	}
	header := []string{"Name/string/0/name", "Controller/string/0", "Revision/string/0", "Age/string/0"}
	checkTable(t, ControllerRevisions, r, header, map[string]string{"Controller": "Controller of the object", "Revision": "Revision indicates the revision of the state represented by "},
		`["agent-759f6bbb99","daemonset.apps/agent",1,"2s"]`)

	r.OwnerReferences = nil
	checkTable(t, ControllerRevisions, r, header, nil, `["agent-759f6bbb99","\u003cnone\u003e",1,"2s"]`)
}
