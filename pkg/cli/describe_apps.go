package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

func describeDeploymentByName(ctx context.Context, cs kubernetes.Interface, ns, name string, showEvents bool) (string, error) {
	d, err := cs.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	var events *corev1.EventList
	if showEvents {
		events, _ = searchEvents(ctx, cs, "Deployment", d)
	}
	var oldRSs, newRSs []*appsv1.ReplicaSet
	if newRS, old, err := deploymentReplicaSets(ctx, cs, d); err == nil {
		oldRSs = old
		if newRS != nil {
			newRSs = []*appsv1.ReplicaSet{newRS}
		}
	}
	return describeDeployment(d, oldRSs, newRSs, events)
}

// describeDeployment is kubectl's Deployment layout.
func describeDeployment(d *appsv1.Deployment, oldRSs, newRSs []*appsv1.ReplicaSet, events *corev1.EventList) (string, error) {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return "", err
	}
	return tabbed(func(w *describeWriter) {
		w.write(0, "Name:\t%s\n", d.Name)
		w.write(0, "Namespace:\t%s\n", d.Namespace)
		w.write(0, "CreationTimestamp:\t%s\n", d.CreationTimestamp.Time.Format(time.RFC1123Z))
		printLabels(w, "Labels", d.Labels)
		printAnnotations(w, "Annotations", d.Annotations)
		w.write(0, "Selector:\t%s\n", sel)
		var replicas int32
		if d.Spec.Replicas != nil {
			replicas = *d.Spec.Replicas
		}
		s := d.Status
		w.write(0, "Replicas:\t%d desired | %d updated | %d total | %d available | %d unavailable\n",
			replicas, s.UpdatedReplicas, s.Replicas, s.AvailableReplicas, s.UnavailableReplicas)
		w.write(0, "StrategyType:\t%s\n", d.Spec.Strategy.Type)
		w.write(0, "MinReadySeconds:\t%d\n", d.Spec.MinReadySeconds)
		if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
			w.write(0, "RollingUpdateStrategy:\t%s max unavailable, %s max surge\n", ru.MaxUnavailable.String(), ru.MaxSurge.String())
		}
		describePodTemplate(w, &d.Spec.Template)
		if len(s.Conditions) > 0 {
			w.write(0, "Conditions:\n  Type\tStatus\tReason\n")
			w.write(1, "----\t------\t------\n")
			for _, c := range s.Conditions {
				w.write(1, "%v \t%v\t%v\n", c.Type, c.Status, c.Reason)
			}
		}
		if len(oldRSs) > 0 || len(newRSs) > 0 {
			w.write(0, "OldReplicaSets:\t%s\n", replicaSetSummary(oldRSs))
			w.write(0, "NewReplicaSet:\t%s\n", replicaSetSummary(newRSs))
		}
		describeEvents(w, events)
	}), nil
}

// replicaSetSummary is "name (2/3 replicas created), ..." or "<none>".
func replicaSetSummary(rss []*appsv1.ReplicaSet) string {
	parts := make([]string, 0, len(rss))
	for _, rs := range rss {
		var want int32
		if rs.Spec.Replicas != nil {
			want = *rs.Spec.Replicas
		}
		parts = append(parts, fmt.Sprintf("%s (%d/%d replicas created)", rs.Name, rs.Status.Replicas, want))
	}
	if len(parts) == 0 {
		return "<none>"
	}
	return strings.Join(parts, ", ")
}

func describeReplicaSetByName(ctx context.Context, cs kubernetes.Interface, ns, name string, showEvents bool) (string, error) {
	rs, err := cs.AppsV1().ReplicaSets(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	counts, podErr := podPhaseCounts(ctx, cs, rs)
	var events *corev1.EventList
	if showEvents {
		events, _ = searchEvents(ctx, cs, "ReplicaSet", rs)
	}
	return tabbed(func(w *describeWriter) {
		w.write(0, "Name:\t%s\n", rs.Name)
		w.write(0, "Namespace:\t%s\n", rs.Namespace)
		w.write(0, "Selector:\t%s\n", metav1.FormatLabelSelector(rs.Spec.Selector))
		printLabels(w, "Labels", rs.Labels)
		printAnnotations(w, "Annotations", rs.Annotations)
		if ref := metav1.GetControllerOf(rs); ref != nil {
			w.write(0, "Controlled By:\t%s/%s\n", ref.Kind, ref.Name)
		}
		var want int32
		if rs.Spec.Replicas != nil {
			want = *rs.Spec.Replicas
		}
		w.write(0, "Replicas:\t%d current / %d desired\n", rs.Status.Replicas, want)
		w.write(0, "Pods Status:\t")
		if podErr != nil {
			w.write(0, "error in fetching pods: %s\n", podErr)
		} else {
			w.write(0, "%d Running / %d Waiting / %d Succeeded / %d Failed\n",
				counts[corev1.PodRunning], counts[corev1.PodPending], counts[corev1.PodSucceeded], counts[corev1.PodFailed])
		}
		describePodTemplate(w, &rs.Spec.Template)
		if len(rs.Status.Conditions) > 0 {
			w.write(0, "Conditions:\n  Type\tStatus\tReason\n")
			w.write(1, "----\t------\t------\n")
			for _, c := range rs.Status.Conditions {
				w.write(1, "%v \t%v\t%v\n", c.Type, c.Status, c.Reason)
			}
		}
		describeEvents(w, events)
	}), nil
}

// podPhaseCounts counts the phases of the pods a ReplicaSet controls.
func podPhaseCounts(ctx context.Context, cs kubernetes.Interface, rs *appsv1.ReplicaSet) (map[corev1.PodPhase]int, error) {
	sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		return nil, err
	}
	pods, err := cs.CoreV1().Pods(rs.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String(), Limit: 500})
	if err != nil {
		return nil, err
	}
	counts := map[corev1.PodPhase]int{}
	for i := range pods.Items {
		if ref := metav1.GetControllerOf(&pods.Items[i]); ref != nil && ref.UID == rs.UID {
			counts[pods.Items[i].Status.Phase]++
		}
	}
	return counts, nil
}

// describePodTemplate is the "Pod Template:" block of Deployments,
// ReplicaSets and `rollout history --revision`.
func describePodTemplate(w *describeWriter, t *corev1.PodTemplateSpec) {
	w.write(0, "Pod Template:\n")
	printLabels(w, "  Labels", t.Labels)
	if len(t.Annotations) > 0 {
		printAnnotations(w, "  Annotations", t.Annotations)
	}
	if t.Spec.ServiceAccountName != "" {
		w.write(1, "Service Account:\t%s\n", t.Spec.ServiceAccountName)
	}
	if len(t.Spec.InitContainers) > 0 {
		describeContainers(w, "Init Containers", t.Spec.InitContainers, nil, "  ")
	}
	describeContainers(w, "Containers", t.Spec.Containers, nil, "  ")
	describeVolumes(w, t.Spec.Volumes, "  ")
	if t.Spec.PriorityClassName != "" {
		w.write(1, "Priority Class Name:\t%s\n", t.Spec.PriorityClassName)
	}
	printLabels(w, "  Node-Selectors", t.Spec.NodeSelector)
	printTolerations(w, "  Tolerations", t.Spec.Tolerations)
}
