package registry

// The checks kube-apiserver's LimitRanger admission makes of a new pod
// and a new claim against one LimitRange: each container's (and the whole
// pod's) requests and limits against a Container (Pod) item's min, max and
// maxLimitRequestRatio, and a claim's storage request against a
// PersistentVolumeClaim item's min and max. The messages are kube's; kube
// walks each item's resources in map order, so when several fail its
// order varies, where here it is sorted by resource name.

import (
	"fmt"
	"math/big"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// podLimitViolations are the ways pod breaks lr's Container and Pod items.
func podLimitViolations(lr *corev1.LimitRange, pod *corev1.Pod) []error {
	var errs []error
	for _, item := range lr.Spec.Limits {
		switch item.Type {
		case corev1.LimitTypeContainer:
			for _, cs := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
				for _, c := range cs {
					errs = append(errs, itemViolations(item, c.Resources.Requests, c.Resources.Limits)...)
				}
			}
		case corev1.LimitTypePod:
			// The pod's effective requests and limits, as the scheduler
			// counts them (init containers and sidecars included, pod-level
			// resources winning), without the runtime's overhead.
			opts := resourcehelper.PodResourcesOptions{ExcludeOverhead: true}
			errs = append(errs, itemViolations(item, resourcehelper.PodRequests(pod, opts), resourcehelper.PodLimits(pod, opts))...)
		}
	}
	return errs
}

// pvcLimitViolations are the ways a claim's storage requests break lr's
// PersistentVolumeClaim items. A claim's limits are not user input here,
// so only its requests are held against min and max.
func pvcLimitViolations(lr *corev1.LimitRange, pvc *corev1.PersistentVolumeClaim) []error {
	var errs []error
	requests := pvc.Spec.Resources.Requests
	for _, item := range lr.Spec.Limits {
		if item.Type != corev1.LimitTypePersistentVolumeClaim {
			continue
		}
		for _, name := range sortedResourceNames(item.Min) {
			if err := minViolation(item.Type, name, item.Min[corev1.ResourceName(name)], requests, nil); err != nil {
				errs = append(errs, err)
			}
		}
		for _, name := range sortedResourceNames(item.Max) {
			if err := maxRequestViolation(item.Type, name, item.Max[corev1.ResourceName(name)], requests); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errs
}

// itemViolations holds requests and limits against one item's min, max
// and ratio, in that order.
func itemViolations(item corev1.LimitRangeItem, requests, limits corev1.ResourceList) []error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	for _, name := range sortedResourceNames(item.Min) {
		add(minViolation(item.Type, name, item.Min[corev1.ResourceName(name)], requests, limits))
	}
	for _, name := range sortedResourceNames(item.Max) {
		add(maxViolation(item.Type, name, item.Max[corev1.ResourceName(name)], requests, limits))
	}
	for _, name := range sortedResourceNames(item.MaxLimitRequestRatio) {
		add(ratioViolation(item.Type, name, item.MaxLimitRequestRatio[corev1.ResourceName(name)], requests, limits))
	}
	return errs
}

// minViolation: a request must be set and, like a limit if set, not be
// below floor.
func minViolation(kind corev1.LimitType, name string, floor resource.Quantity, requests, limits corev1.ResourceList) error {
	req, hasReq := requests[corev1.ResourceName(name)]
	lim, hasLim := limits[corev1.ResourceName(name)]
	switch {
	case !hasReq:
		return fmt.Errorf("minimum %s usage per %s is %s.  No request is specified", name, kind, floor.String())
	case floor.Cmp(req) > 0:
		return fmt.Errorf("minimum %s usage per %s is %s, but request is %s", name, kind, floor.String(), req.String())
	case hasLim && floor.Cmp(lim) > 0:
		return fmt.Errorf("minimum %s usage per %s is %s, but limit is %s", name, kind, floor.String(), lim.String())
	}
	return nil
}

// maxViolation: a limit must be set and, like a request if set, not be
// above ceiling.
func maxViolation(kind corev1.LimitType, name string, ceiling resource.Quantity, requests, limits corev1.ResourceList) error {
	req, hasReq := requests[corev1.ResourceName(name)]
	lim, hasLim := limits[corev1.ResourceName(name)]
	switch {
	case !hasLim:
		return fmt.Errorf("maximum %s usage per %s is %s.  No limit is specified", name, kind, ceiling.String())
	case lim.Cmp(ceiling) > 0:
		return fmt.Errorf("maximum %s usage per %s is %s, but limit is %s", name, kind, ceiling.String(), lim.String())
	case hasReq && req.Cmp(ceiling) > 0:
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, kind, ceiling.String(), req.String())
	}
	return nil
}

// maxRequestViolation is maxViolation for kinds whose limits are not
// user input (claims): the request must be set and not above ceiling.
func maxRequestViolation(kind corev1.LimitType, name string, ceiling resource.Quantity, requests corev1.ResourceList) error {
	req, hasReq := requests[corev1.ResourceName(name)]
	switch {
	case !hasReq:
		return fmt.Errorf("maximum %s usage per %s is %s.  No request is specified", name, kind, ceiling.String())
	case req.Cmp(ceiling) > 0:
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, kind, ceiling.String(), req.String())
	}
	return nil
}

// ratioViolation: a non-zero request and limit must both be set, and the
// limit may be at most ratio times the request. The ratio is compared
// exactly and shown with six decimals, as kube shows it.
func ratioViolation(kind corev1.LimitType, name string, ratio resource.Quantity, requests, limits corev1.ResourceList) error {
	req, hasReq := requests[corev1.ResourceName(name)]
	lim, hasLim := limits[corev1.ResourceName(name)]
	switch {
	case !hasReq || req.Sign() == 0:
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no request is specified or request is 0", name, kind, ratio.String())
	case !hasLim || lim.Sign() == 0:
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0", name, kind, ratio.String())
	}
	observed := new(big.Rat).Quo(quantityRat(lim), quantityRat(req))
	if observed.Cmp(quantityRat(ratio)) > 0 {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but provided ratio is %s", name, kind, ratio.String(), observed.FloatString(6))
	}
	return nil
}

// quantityRat is q's exact value.
func quantityRat(q resource.Quantity) *big.Rat {
	d := q.AsDec()
	r := new(big.Rat).SetInt(d.UnscaledBig())
	scale := int64(d.Scale())
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(max(scale, -scale)), nil)
	if scale >= 0 {
		return r.Quo(r, new(big.Rat).SetInt(pow))
	}
	return r.Mul(r, new(big.Rat).SetInt(pow))
}
