package printers

import (
	corev1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Column definitions as kube-apiserver 1.37 declares them. Descriptions
// come from the API types' SwaggerDoc, as kube-apiserver's do, so they stay
// in step with the k8s.io/api version.

var (
	nameDoc = metav1.ObjectMeta{}.SwaggerDoc()["name"]
	ageDoc  = metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]

	containersDoc = "Names of each container in the template."
	imagesDoc     = "Images referenced by each container in the template."
)

func col(name, typ, doc string, priority int32) metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: name, Type: typ, Description: doc, Priority: priority}
}

func nameCol() metav1.TableColumnDefinition {
	c := col("Name", "string", nameDoc, 0)
	c.Format = "name"
	return c
}

func ageCol() metav1.TableColumnDefinition { return col("Age", "string", ageDoc, 0) }

var namespaceColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Status", "string", "The status of the namespace", 0),
	ageCol(),
}

var nodeColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Status", "string", "The status of the node", 0),
	col("Roles", "string", "The roles of the node", 0),
	ageCol(),
	col("Version", "string", corev1.NodeSystemInfo{}.SwaggerDoc()["kubeletVersion"], 0),
	col("Internal-IP", "string", corev1.NodeStatus{}.SwaggerDoc()["addresses"], 1),
	col("External-IP", "string", corev1.NodeStatus{}.SwaggerDoc()["addresses"], 1),
	col("OS-Image", "string", corev1.NodeSystemInfo{}.SwaggerDoc()["osImage"], 1),
	col("Kernel-Version", "string", corev1.NodeSystemInfo{}.SwaggerDoc()["kernelVersion"], 1),
	col("Container-Runtime", "string", corev1.NodeSystemInfo{}.SwaggerDoc()["containerRuntimeVersion"], 1),
}

var podColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Ready", "string", "The aggregate readiness state of this pod for accepting traffic.", 0),
	col("Status", "string", "The aggregate status of the containers in this pod.", 0),
	col("Restarts", "string", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.", 0),
	ageCol(),
	col("IP", "string", corev1.PodStatus{}.SwaggerDoc()["podIP"], 1),
	col("Node", "string", corev1.PodSpec{}.SwaggerDoc()["nodeName"], 1),
	col("Nominated Node", "string", corev1.PodStatus{}.SwaggerDoc()["nominatedNodeName"], 1),
	col("Readiness Gates", "string", corev1.PodSpec{}.SwaggerDoc()["readinessGates"], 1),
}

var eventColumns = func() []metav1.TableColumnDefinition {
	doc := corev1.Event{}.SwaggerDoc()
	name := nameCol()
	name.Priority = 1
	return []metav1.TableColumnDefinition{
		col("Last Seen", "string", doc["lastTimestamp"], 0),
		col("Type", "string", doc["type"], 0),
		col("Reason", "string", doc["reason"], 0),
		col("Object", "string", doc["involvedObject"], 0),
		col("Subobject", "string", corev1.ObjectReference{}.SwaggerDoc()["fieldPath"], 1),
		col("Source", "string", doc["source"], 1),
		col("Message", "string", doc["message"], 0),
		col("First Seen", "string", doc["firstTimestamp"], 1),
		col("Count", "string", doc["count"], 1),
		name,
	}
}()

// kube-apiserver still takes these descriptions from extensions/v1beta1.
var replicaSetColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Desired", "integer", extensionsv1beta1.ReplicaSetSpec{}.SwaggerDoc()["replicas"], 0),
	col("Current", "integer", extensionsv1beta1.ReplicaSetStatus{}.SwaggerDoc()["replicas"], 0),
	col("Ready", "integer", extensionsv1beta1.ReplicaSetStatus{}.SwaggerDoc()["readyReplicas"], 0),
	ageCol(),
	col("Containers", "string", containersDoc, 1),
	col("Images", "string", imagesDoc, 1),
	col("Selector", "string", extensionsv1beta1.ReplicaSetSpec{}.SwaggerDoc()["selector"], 1),
}

var deploymentColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Ready", "string", "Number of the pod with ready state", 0),
	col("Up-to-date", "string", extensionsv1beta1.DeploymentStatus{}.SwaggerDoc()["updatedReplicas"], 0),
	col("Available", "string", extensionsv1beta1.DeploymentStatus{}.SwaggerDoc()["availableReplicas"], 0),
	ageCol(),
	col("Containers", "string", containersDoc, 1),
	col("Images", "string", imagesDoc, 1),
	col("Selector", "string", extensionsv1beta1.DeploymentSpec{}.SwaggerDoc()["selector"], 1),
}
