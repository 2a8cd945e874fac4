package disruption

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// expectedCount is how many pods the budget is about (expected) and how
// many of them must stay healthy (desired), as kube computes them. An
// integer minAvailable counts the selected pods; a percentage, or
// maxUnavailable, is taken of the replicas the pods' controllers want, so
// pods with no controller (unmanaged) cannot be counted there.
func (c *Controller) expectedCount(ctx context.Context, pdb *policyv1.PodDisruptionBudget, pods []*corev1.Pod) (expected, desired int32, unmanaged []string, err error) {
	switch {
	case pdb.Spec.MaxUnavailable != nil:
		if expected, unmanaged, err = c.expectedScale(ctx, pods); err != nil {
			return 0, 0, nil, err
		}
		maxUnavailable, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, int(expected), true)
		if err != nil {
			return 0, 0, nil, err
		}
		desired = max(expected-int32(maxUnavailable), 0)
	case pdb.Spec.MinAvailable != nil && pdb.Spec.MinAvailable.Type == intstr.Int:
		desired, expected = pdb.Spec.MinAvailable.IntVal, int32(len(pods))
	case pdb.Spec.MinAvailable != nil:
		if expected, unmanaged, err = c.expectedScale(ctx, pods); err != nil {
			return 0, 0, nil, err
		}
		minAvailable, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MinAvailable, int(expected), true)
		if err != nil {
			return 0, 0, nil, err
		}
		desired = int32(minAvailable)
	}
	return expected, desired, unmanaged, nil
}

// expectedScale sums the replicas wanted by the controllers of pods, each
// controller once. A pod whose controller is none of the kinds with a
// scale is an error, as in kube.
func (c *Controller) expectedScale(ctx context.Context, pods []*corev1.Pod) (int32, []string, error) {
	// seenRefs are the pods' controllers already looked at; counted are
	// the objects whose replicas are in total (a Deployment once, however
	// many of its ReplicaSets the pods name).
	seenRefs, counted := map[types.UID]bool{}, map[types.UID]bool{}
	var total int32
	var unmanaged []string
	for _, pod := range pods {
		ref := metav1.GetControllerOf(pod)
		if ref == nil {
			unmanaged = append(unmanaged, pod.Name)
			continue
		}
		if seenRefs[ref.UID] {
			continue
		}
		seenRefs[ref.UID] = true
		uid, scale, found, err := c.controllerScale(ctx, pod.Namespace, ref)
		if err != nil {
			return 0, nil, err
		}
		if !found {
			return 0, nil, fmt.Errorf("found no controllers for pod %q", pod.Name)
		}
		if !counted[uid] {
			counted[uid] = true
			total += scale
		}
	}
	return total, unmanaged, nil
}

// controllerScale finds the controller ref names and the replicas it
// wants: a ReplicaSet's Deployment when it has one, else the ReplicaSet;
// a ReplicationController; a StatefulSet. uid is the object counted, so
// two ReplicaSets of one Deployment count it once.
func (c *Controller) controllerScale(ctx context.Context, ns string, ref *metav1.OwnerReference) (types.UID, int32, bool, error) {
	switch {
	case ref.Kind == "ReplicaSet" && ref.APIVersion == appsv1.SchemeGroupVersion.String():
		rs, err := c.rsLister.ReplicaSets(ns).Get(ref.Name)
		if err != nil || rs.UID != ref.UID {
			return "", 0, false, nil
		}
		if dref := metav1.GetControllerOf(rs); dref != nil && dref.Kind == "Deployment" {
			if d, err := c.depLister.Deployments(ns).Get(dref.Name); err == nil && d.UID == dref.UID {
				return d.UID, replicas(d.Spec.Replicas), true, nil
			}
		}
		return rs.UID, replicas(rs.Spec.Replicas), true, nil
	case ref.Kind == "ReplicationController" && ref.APIVersion == "v1":
		rc, err := c.client.CoreV1().ReplicationControllers(ns).Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil || rc.UID != ref.UID {
			return "", 0, false, nil
		}
		return rc.UID, replicas(rc.Spec.Replicas), true, nil
	case ref.Kind == "StatefulSet" && ref.APIVersion == appsv1.SchemeGroupVersion.String():
		ss, err := c.client.AppsV1().StatefulSets(ns).Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil || ss.UID != ref.UID {
			return "", 0, false, nil
		}
		return ss.UID, replicas(ss.Spec.Replicas), true, nil
	}
	return "", 0, false, nil
}

func replicas(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}
