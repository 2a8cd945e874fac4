// Package servicepods answers the questions the endpoints and
// endpointslice controllers share: which Services select a pod, whether a
// pod belongs behind its Services at all, whether it is ready, which port
// a Service port reaches on it, and when the last change that matters
// happened (the last-change-trigger-time annotation).
//
// The rules are kube-controller-manager's, so both controllers publish the
// same pods a real cluster would.
package servicepods

import (
	"fmt"
	"reflect"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// Managed reports whether a Service gets endpoints from the controllers:
// it needs a selector, and an ExternalName Service never gets any.
func Managed(svc *corev1.Service) bool {
	return svc.Spec.Type != corev1.ServiceTypeExternalName && svc.Spec.Selector != nil
}

// Headless reports whether a Service has no cluster IP.
func Headless(svc *corev1.Service) bool {
	return svc.Spec.ClusterIP == "" || svc.Spec.ClusterIP == corev1.ClusterIPNone
}

// Selected lists the pods a Service selects, from the cache.
func Selected(pods corelisters.PodLister, svc *corev1.Service) ([]*corev1.Pod, error) {
	return pods.Pods(svc.Namespace).List(labels.SelectorFromValidatedSet(svc.Spec.Selector))
}

// ServiceKeys returns the keys of the Services in namespace whose
// selector matches any of the label sets.
func ServiceKeys(services corelisters.ServiceLister, namespace string, sets ...labels.Set) []string {
	all, err := services.Services(namespace).List(labels.Everything())
	if err != nil {
		return nil
	}
	var keys []string
	for _, svc := range all {
		if svc.Spec.Selector == nil { // a nil selector selects nothing
			continue
		}
		sel := labels.SelectorFromValidatedSet(svc.Spec.Selector)
		if slices.ContainsFunc(sets, func(s labels.Set) bool { return sel.Matches(s) }) {
			keys = append(keys, namespace+"/"+svc.Name)
		}
	}
	return keys
}

// PodFrom returns the pod in an informer event, tombstones included.
func PodFrom(obj any) (*corev1.Pod, bool) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	return pod, ok
}

// Included reports whether a pod is published at all: it has an IP and
// has not finished; a pod being deleted only when includeTerminating.
func Included(pod *corev1.Pod, includeTerminating bool) bool {
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return false
	}
	if pod.Status.PodIP == "" && len(pod.Status.PodIPs) == 0 {
		return false
	}
	return includeTerminating || pod.DeletionTimestamp == nil
}

// Ready reports whether the pod's Ready condition is True.
func Ready(pod *corev1.Pod) bool {
	c := readyCondition(pod)
	return c != nil && c.Status == corev1.ConditionTrue
}

func readyCondition(pod *corev1.Pod) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == corev1.PodReady {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

// SetHostname reports whether an endpoint of pod carries its hostname:
// the pod names one and sits in the Service's subdomain.
func SetHostname(pod *corev1.Pod, svc *corev1.Service) bool {
	return pod.Spec.Hostname != "" && pod.Spec.Subdomain == svc.Name && pod.Namespace == svc.Namespace
}

// FindPort resolves a Service port's targetPort on pod: a number is
// itself; a name is looked up among the containers' ports (and those of
// sidecar init containers) with the same protocol.
func FindPort(pod *corev1.Pod, port *corev1.ServicePort) (int32, error) {
	target := port.TargetPort
	if target.Type == intstr.Int {
		return target.IntVal, nil
	}
	containers := slices.Clone(pod.Spec.Containers)
	for _, c := range pod.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			containers = append(containers, c)
		}
	}
	for _, c := range containers {
		for _, p := range c.Ports {
			if p.Name == target.StrVal && p.Protocol == port.Protocol {
				return p.ContainerPort, nil
			}
		}
	}
	return 0, fmt.Errorf("no suitable port for manifest: %s", pod.UID)
}

// IPs returns the pod's IPs of one family (IPv6 when ipv6), in order.
func IPs(pod *corev1.Pod, ipv6 bool) []string {
	var out []string
	for _, ip := range pod.Status.PodIPs {
		if isIPv6(ip.IP) == ipv6 {
			out = append(out, ip.IP)
		}
	}
	if len(pod.Status.PodIPs) == 0 && pod.Status.PodIP != "" && isIPv6(pod.Status.PodIP) == ipv6 {
		out = append(out, pod.Status.PodIP)
	}
	return out
}

func isIPv6(ip string) bool {
	for i := 0; i < len(ip); i++ {
		if ip[i] == ':' {
			return true
		}
	}
	return false
}

// Changed reports whether a pod update can change the endpoints of the
// Services that select it: its labels or hostname (which Services, and
// what they publish), deletion, readiness, IPs, node or phase.
func Changed(old, cur *corev1.Pod) bool {
	if old.ResourceVersion == cur.ResourceVersion {
		return false // a resync; the Services' own resync covers it
	}
	return !reflect.DeepEqual(old.Labels, cur.Labels) ||
		old.Spec.Hostname != cur.Spec.Hostname || old.Spec.Subdomain != cur.Spec.Subdomain ||
		(old.DeletionTimestamp == nil) != (cur.DeletionTimestamp == nil) ||
		Ready(old) != Ready(cur) ||
		!reflect.DeepEqual(old.Status.PodIPs, cur.Status.PodIPs) || old.Status.PodIP != cur.Status.PodIP ||
		old.Spec.NodeName != cur.Spec.NodeName || old.Status.Phase != cur.Status.Phase
}

// PodHandler queues, through enqueue, the keys of the Services that select
// a pod when it is added or deleted, and of those that selected it before
// or after a change that can show in their endpoints.
func PodHandler(services corelisters.ServiceLister, enqueue func(key string)) cache.ResourceEventHandlerFuncs {
	queue := func(keys []string) {
		for _, k := range keys {
			enqueue(k)
		}
	}
	addOrDelete := func(obj any) {
		if pod, ok := PodFrom(obj); ok {
			queue(ServiceKeys(services, pod.Namespace, labels.Set(pod.Labels)))
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    addOrDelete,
		DeleteFunc: addOrDelete,
		UpdateFunc: func(oldObj, newObj any) {
			old, cur := oldObj.(*corev1.Pod), newObj.(*corev1.Pod)
			if Changed(old, cur) {
				queue(ServiceKeys(services, cur.Namespace, labels.Set(old.Labels), labels.Set(cur.Labels)))
			}
		},
	}
}
