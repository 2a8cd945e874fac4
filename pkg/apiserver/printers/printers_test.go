package printers

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

var (
	now     = time.Date(2026, 11, 29, 17, 30, 0, 0, time.UTC)
	created = metav1.NewTime(now.Add(-2 * time.Second))
)

func int32p(i int32) *int32 { return &i }

// header lists "Name/type/priority" of every column, in order.
func header(cols []metav1.TableColumnDefinition) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name + "/" + c.Type + "/" + string(rune('0'+c.Priority))
		if c.Format != "" {
			out[i] += "/" + c.Format
		}
	}
	return out
}

// cellsJSON renders the cells as they go on the wire, so integer and string
// cells are told apart.
func cellsJSON(t *testing.T, row metav1.TableRow) string {
	t.Helper()
	b, err := json.Marshal(row.Cells)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustTable(t *testing.T, obj runtime.Object) *metav1.Table {
	t.Helper()
	table, err := tableFor(obj)(obj, now)
	if err != nil {
		t.Fatalf("Table(%T): %v", obj, err)
	}
	return table
}

func webDeployment() *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", ResourceVersion: "310", CreationTimestamp: created},
		Spec: appsv1.DeploymentSpec{
			Replicas: int32p(3),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{
				{Name: "nginx", Image: "nginx"}, {Name: "side", Image: "busybox:1"},
			}}},
		},
		Status: appsv1.DeploymentStatus{UpdatedReplicas: 3, ReadyReplicas: 1, AvailableReplicas: 1},
	}
}

func TestDeploymentTable(t *testing.T) {
	table := mustTable(t, webDeployment())
	wantHeader := []string{"Name/string/0/name", "Ready/string/0", "Up-to-date/string/0", "Available/string/0", "Age/string/0",
		"Containers/string/1", "Images/string/1", "Selector/string/1"}
	if got := header(table.ColumnDefinitions); !reflect.DeepEqual(got, wantHeader) {
		t.Errorf("columns = %v\nwant %v", got, wantHeader)
	}
	descs := map[string]string{
		"Ready":      "Number of the pod with ready state",
		"Up-to-date": "Total number of non-terminating pods targeted by this deployment that have the desired template spec.",
		"Available":  "Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment.",
		"Containers": "Names of each container in the template.",
	}
	for _, c := range table.ColumnDefinitions {
		if want, ok := descs[c.Name]; ok && c.Description != want {
			t.Errorf("column %s description = %q, want %q", c.Name, c.Description, want)
		}
		if c.Name == "Name" && !strings.HasPrefix(c.Description, "Name must be unique within a namespace.") {
			t.Errorf("Name description = %q", c.Description)
		}
	}
	if table.ResourceVersion != "310" || len(table.Rows) != 1 {
		t.Fatalf("rv %q, %d rows", table.ResourceVersion, len(table.Rows))
	}
	want := `["web","1/3",3,1,"2s","nginx,side","nginx,busybox:1","app=web"]`
	if got := cellsJSON(t, table.Rows[0]); got != want {
		t.Errorf("cells = %s\nwant    %s", got, want)
	}
	if table.Rows[0].Object.Object == nil {
		t.Error("row object not set")
	}
}

func TestReplicaSetListTable(t *testing.T) {
	rs := appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web-5fc9f4bf66", CreationTimestamp: metav1.NewTime(now.Add(-182 * time.Second))},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: int32p(5),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"pod-template-hash": "5fc9f4bf66", "app": "web"}},
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.27"}}}},
		},
		Status: appsv1.ReplicaSetStatus{Replicas: 3},
	}
	other := rs.DeepCopy()
	other.Name = "web-other"
	other.Spec.Replicas = nil
	list := &appsv1.ReplicaSetList{ListMeta: metav1.ListMeta{ResourceVersion: "632", Continue: "abc"}, Items: []appsv1.ReplicaSet{rs, *other}}
	table := mustTable(t, list)
	wantHeader := []string{"Name/string/0/name", "Desired/integer/0", "Current/integer/0", "Ready/integer/0", "Age/string/0",
		"Containers/string/1", "Images/string/1", "Selector/string/1"}
	if got := header(table.ColumnDefinitions); !reflect.DeepEqual(got, wantHeader) {
		t.Errorf("columns = %v", got)
	}
	if table.ResourceVersion != "632" || table.Continue != "abc" {
		t.Errorf("list meta = %+v", table.ListMeta)
	}
	if len(table.Rows) != 2 {
		t.Fatalf("%d rows", len(table.Rows))
	}
	want := []string{
		`["web-5fc9f4bf66",5,3,0,"3m2s","nginx","nginx:1.27","app=web,pod-template-hash=5fc9f4bf66"]`,
		`["web-other",0,3,0,"3m2s","nginx","nginx:1.27","app=web,pod-template-hash=5fc9f4bf66"]`,
	}
	for i, w := range want {
		if got := cellsJSON(t, table.Rows[i]); got != w {
			t.Errorf("row %d = %s\nwant    %s", i, got, w)
		}
	}
}

func TestEmptyListKeepsColumns(t *testing.T) {
	table := mustTable(t, &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "7"}})
	if len(table.ColumnDefinitions) != 9 || len(table.Rows) != 0 || table.ResourceVersion != "7" {
		t.Errorf("got %d columns, %d rows, rv %q", len(table.ColumnDefinitions), len(table.Rows), table.ResourceVersion)
	}
	if table.Rows == nil {
		t.Error("rows must be [] not null on the wire")
	}
}

// tableFor is the printer of a built-in kind, as its registry entry names it.
func tableFor(obj runtime.Object) func(runtime.Object, time.Time) (*metav1.Table, error) {
	switch obj.(type) {
	case *corev1.Namespace:
		return Namespaces
	case *corev1.Node:
		return Nodes
	case *corev1.Pod, *corev1.PodList:
		return Pods
	case *corev1.Event:
		return Events
	case *appsv1.ReplicaSet, *appsv1.ReplicaSetList:
		return ReplicaSets
	case *appsv1.Deployment:
		return Deployments
	}
	return Default
}

func TestDefaultTable(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg", CreationTimestamp: created}}
	table := mustTable(t, cm)
	if got, want := header(table.ColumnDefinitions), []string{"Name/string/0/name", "Created At/date/0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("columns %v, want %v", got, want)
	}
	if got, want := cellsJSON(t, table.Rows[0]), `["cfg","2026-11-29T17:29:58Z"]`; got != want {
		t.Errorf("cells %s, want %s", got, want)
	}
}

func TestNamespaceTable(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default", CreationTimestamp: metav1.NewTime(now.Add(-90 * time.Minute))},
		Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}}
	table := mustTable(t, ns)
	if got, want := header(table.ColumnDefinitions), []string{"Name/string/0/name", "Status/string/0", "Age/string/0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("columns = %v", got)
	}
	if got, want := cellsJSON(t, table.Rows[0]), `["default","Active","90m"]`; got != want {
		t.Errorf("cells = %s, want %s", got, want)
	}
}

func TestNodeTable(t *testing.T) {
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "node-1", CreationTimestamp: metav1.NewTime(now.Add(-49 * time.Hour)),
			Labels: map[string]string{"node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/control-plane": "", "kubernetes.io/role": "worker"}},
		Spec: corev1.NodeSpec{Unschedulable: true},
		Status: corev1.NodeStatus{
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse}, {Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
			Addresses:  []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: "node-1"}, {Type: corev1.NodeInternalIP, Address: "10.0.0.1"}},
			NodeInfo:   corev1.NodeSystemInfo{KubeletVersion: "v1.37.2", OSImage: "miniapi"},
		},
	}
	table := mustTable(t, node)
	wantHeader := []string{"Name/string/0/name", "Status/string/0", "Roles/string/0", "Age/string/0", "Version/string/0",
		"Internal-IP/string/1", "External-IP/string/1", "OS-Image/string/1", "Kernel-Version/string/1", "Container-Runtime/string/1"}
	if got := header(table.ColumnDefinitions); !reflect.DeepEqual(got, wantHeader) {
		t.Errorf("columns = %v", got)
	}
	want := `["node-1","Ready,SchedulingDisabled","control-plane,worker","2d1h","v1.37.2","10.0.0.1","\u003cnone\u003e","miniapi","\u003cunknown\u003e","\u003cunknown\u003e"]`
	if got := cellsJSON(t, table.Rows[0]); got != want {
		t.Errorf("cells = %s\nwant    %s", got, want)
	}
	node.Status.Conditions = nil
	node.Spec.Unschedulable = false
	node.Labels = nil
	if got := mustTable(t, node).Rows[0].Cells[1:3]; !reflect.DeepEqual(got, []interface{}{"Unknown", "<none>"}) {
		t.Errorf("status, roles = %v", got)
	}
}

func TestEventTable(t *testing.T) {
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "web.1", CreationTimestamp: created},
		InvolvedObject: corev1.ObjectReference{Kind: "Deployment", Name: "web", FieldPath: "spec"},
		Reason:         "ScalingReplicaSet", Message: " Scaled up replica set web-1 to 3 ", Type: "Normal",
		Source:         corev1.EventSource{Component: "deployment-controller"},
		FirstTimestamp: metav1.NewTime(now.Add(-5 * time.Minute)), LastTimestamp: metav1.NewTime(now.Add(-30 * time.Second)), Count: 4,
	}
	table := mustTable(t, ev)
	wantHeader := []string{"Last Seen/string/0", "Type/string/0", "Reason/string/0", "Object/string/0", "Subobject/string/1",
		"Source/string/1", "Message/string/0", "First Seen/string/1", "Count/string/1", "Name/string/1/name"}
	if got := header(table.ColumnDefinitions); !reflect.DeepEqual(got, wantHeader) {
		t.Errorf("columns = %v", got)
	}
	want := `["30s","Normal","ScalingReplicaSet","deployment/web","spec","deployment-controller","Scaled up replica set web-1 to 3","5m",4,"web.1"]`
	if got := cellsJSON(t, table.Rows[0]); got != want {
		t.Errorf("cells = %s\nwant    %s", got, want)
	}
	// An events.k8s.io-style event: no legacy timestamps nor count.
	ev2 := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e2"}, InvolvedObject: corev1.ObjectReference{Kind: "Node"},
		EventTime: metav1.NewMicroTime(now.Add(-10 * time.Second)), ReportingController: "kubelet", ReportingInstance: "node-1"}
	want2 := `["10s","","","node","","kubelet, node-1","","10s",1,"e2"]`
	if got := cellsJSON(t, mustTable(t, ev2).Rows[0]); got != want2 {
		t.Errorf("cells = %s\nwant    %s", got, want2)
	}
}

func TestStatefulSetTable(t *testing.T) {
	n := int32(2)
	s := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "db", CreationTimestamp: created},
		Spec: appsv1.StatefulSetSpec{Replicas: &n, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "pg", Image: "postgres"}},
		}}},
		Status: appsv1.StatefulSetStatus{ReadyReplicas: 1},
	}
	table, err := StatefulSets(s, created.Add(6*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := header(table.ColumnDefinitions), []string{"Name/string/0/name", "Ready/string/0", "Age/string/0", "Containers/string/1", "Images/string/1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("columns %v, want %v", got, want)
	}
	if got, want := table.Rows[0].Cells, []interface{}{"db", "1/2", "6s", "pg", "postgres"}; !reflect.DeepEqual(got, want) {
		t.Errorf("cells %v, want %v", got, want)
	}
}
