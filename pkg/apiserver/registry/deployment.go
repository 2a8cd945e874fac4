package registry

// Deployments: defaults (1 replica, RollingUpdate 25%/25%, 10 revisions
// kept, 600 s progress deadline), validation, generation on spec or
// annotation changes, and the scale view.

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// deployments is apps/v1 deployments.
func deployments() *Resource {
	s := deploymentStrategy{}
	return &Resource{
		Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", ListKind: "DeploymentList", Singular: "deployment",
		ShortNames: []string{"deploy"}, Categories: []string{"all"}, Namespaced: true,
		New:     func() runtime.Object { return &appsv1.Deployment{} },
		NewList: func() runtime.Object { return &appsv1.DeploymentList{} },

		Strategy: s,
		Subresources: map[string]*Subresource{
			"status": {PrepareForUpdate: s.PrepareForStatusUpdate, ValidateUpdate: s.ValidateStatusUpdate},
			"scale":  scaleSubresource(s.Scale, s.SetReplicas),
		},
		Generation: s.GenerationChanged,
		Table:      printers.Deployments,
	}
}

type deploymentStrategy struct{}

const (
	defaultRevisionHistoryLimit    = int32(10)
	defaultProgressDeadlineSeconds = int32(600)
	defaultMaxSurgeOrUnavailable   = "25%"
)

// defaultDeployment applies apps/v1's SetDefaults_Deployment.
func defaultDeployment(d *appsv1.Deployment) {
	if d.Spec.Replicas == nil {
		one := int32(1)
		d.Spec.Replicas = &one
	}
	s := &d.Spec.Strategy
	if s.Type == "" {
		s.Type = appsv1.RollingUpdateDeploymentStrategyType
	}
	if s.Type == appsv1.RollingUpdateDeploymentStrategyType {
		if s.RollingUpdate == nil {
			s.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		if s.RollingUpdate.MaxUnavailable == nil {
			s.RollingUpdate.MaxUnavailable = intOrPercent(defaultMaxSurgeOrUnavailable)
		}
		if s.RollingUpdate.MaxSurge == nil {
			s.RollingUpdate.MaxSurge = intOrPercent(defaultMaxSurgeOrUnavailable)
		}
	}
	if d.Spec.RevisionHistoryLimit == nil {
		v := defaultRevisionHistoryLimit
		d.Spec.RevisionHistoryLimit = &v
	}
	if d.Spec.ProgressDeadlineSeconds == nil {
		v := defaultProgressDeadlineSeconds
		d.Spec.ProgressDeadlineSeconds = &v
	}
	defaultPodTemplate(&d.Spec.Template)
}

// PrepareForCreate clears status and applies defaults.
func (deploymentStrategy) PrepareForCreate(obj runtime.Object) {
	d := obj.(*appsv1.Deployment)
	d.Status = appsv1.DeploymentStatus{}
	defaultDeployment(d)
}

// PrepareForUpdate keeps the stored status.
func (deploymentStrategy) PrepareForUpdate(obj, old runtime.Object) {
	d := obj.(*appsv1.Deployment)
	d.Status = old.(*appsv1.Deployment).Status
	defaultDeployment(d)
}

// PrepareForStatusUpdate keeps the stored spec and labels; annotations
// may change (the controller records deployment.kubernetes.io/revision
// through /status).
func (deploymentStrategy) PrepareForStatusUpdate(obj, old runtime.Object) {
	d, o := obj.(*appsv1.Deployment), old.(*appsv1.Deployment)
	d.Spec = o.Spec
	d.Labels = o.Labels
}

// Validate checks a new deployment.
func (deploymentStrategy) Validate(obj runtime.Object) field.ErrorList {
	d := obj.(*appsv1.Deployment)
	errs := ValidateMetaCreate(&d.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)
	return append(errs, validateDeploymentSpec(&d.Spec)...)
}

// ValidateUpdate also forbids changing the selector.
func (deploymentStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	d, o := obj.(*appsv1.Deployment), old.(*appsv1.Deployment)
	errs := ValidateMetaUpdate(&d.ObjectMeta, &o.ObjectMeta)
	errs = append(errs, validateDeploymentSpec(&d.Spec)...)
	return append(errs, apimachineryvalidation.ValidateImmutableField(d.Spec.Selector, o.Spec.Selector, specPath.Child("selector"))...)
}

// ValidateStatusUpdate checks a write to deployments/status.
func (deploymentStrategy) ValidateStatusUpdate(obj, old runtime.Object) field.ErrorList {
	d, o := obj.(*appsv1.Deployment), old.(*appsv1.Deployment)
	errs := ValidateMetaUpdate(&d.ObjectMeta, &o.ObjectMeta)
	statusPath := field.NewPath("status")
	s := d.Status
	errs = append(errs, nonNegative(s.ObservedGeneration, statusPath.Child("observedGeneration"))...)
	errs = append(errs, validateReplicaCounts(statusPath, map[string]int32{
		"replicas": s.Replicas, "updatedReplicas": s.UpdatedReplicas, "readyReplicas": s.ReadyReplicas,
		"availableReplicas": s.AvailableReplicas, "unavailableReplicas": s.UnavailableReplicas,
	})...)
	if s.CollisionCount != nil {
		errs = append(errs, nonNegative(int64(*s.CollisionCount), statusPath.Child("collisionCount"))...)
	}
	if s.CollisionCount == nil && o.Status.CollisionCount != nil || s.CollisionCount != nil && o.Status.CollisionCount != nil && *s.CollisionCount < *o.Status.CollisionCount {
		value := int32(0)
		if s.CollisionCount != nil {
			value = *s.CollisionCount
		}
		errs = append(errs, field.Invalid(statusPath.Child("collisionCount"), value, "cannot be decremented"))
	}
	return errs
}

// GenerationChanged: spec or annotations changed (annotations are copied
// to the ReplicaSets, so they count as desired state).
func (deploymentStrategy) GenerationChanged(obj, old runtime.Object) bool {
	d, o := obj.(*appsv1.Deployment), old.(*appsv1.Deployment)
	return !apiequality.Semantic.DeepEqual(d.Spec, o.Spec) || !apiequality.Semantic.DeepEqual(d.Annotations, o.Annotations)
}

// Scale returns the deployment's Scale.
func (deploymentStrategy) Scale(obj runtime.Object) *autoscalingv1.Scale {
	d := obj.(*appsv1.Deployment)
	return newScale(&d.ObjectMeta, d.Spec.Replicas, d.Status.Replicas, d.Spec.Selector)
}

// SetReplicas sets spec.replicas.
func (deploymentStrategy) SetReplicas(obj runtime.Object, replicas int32) {
	obj.(*appsv1.Deployment).Spec.Replicas = &replicas
}

// validateDeploymentSpec follows kube's ValidateDeploymentSpec, in its
// order (the order of the causes in the 422 answer).
func validateDeploymentSpec(spec *appsv1.DeploymentSpec) field.ErrorList {
	errs := nonNegative(int64(replicasOr1(spec.Replicas)), specPath.Child("replicas"))
	errs = append(errs, validateSelectorAndTemplate(spec.Selector, &spec.Template, "ReplicaSet")...)
	errs = append(errs, validateDeploymentStrategy(&spec.Strategy, specPath.Child("strategy"))...)
	errs = append(errs, nonNegative(int64(spec.MinReadySeconds), specPath.Child("minReadySeconds"))...)
	if spec.RevisionHistoryLimit != nil {
		errs = append(errs, nonNegative(int64(*spec.RevisionHistoryLimit), specPath.Child("revisionHistoryLimit"))...)
	}
	if p := spec.ProgressDeadlineSeconds; p != nil {
		path := specPath.Child("progressDeadlineSeconds")
		errs = append(errs, nonNegative(int64(*p), path)...)
		if *p <= spec.MinReadySeconds {
			errs = append(errs, field.Invalid(path, *p, "must be greater than minReadySeconds"))
		}
	}
	return errs
}

func validateDeploymentStrategy(s *appsv1.DeploymentStrategy, fldPath *field.Path) field.ErrorList {
	switch s.Type {
	case appsv1.RecreateDeploymentStrategyType:
		if s.RollingUpdate != nil {
			return field.ErrorList{field.Forbidden(fldPath.Child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'")}
		}
	case appsv1.RollingUpdateDeploymentStrategyType:
		if s.RollingUpdate == nil {
			return field.ErrorList{field.Required(fldPath.Child("rollingUpdate"), "this should be defaulted and never be nil")}
		}
		return validateRollingUpdate(s.RollingUpdate, fldPath.Child("rollingUpdate"))
	default:
		valid := []string{string(appsv1.RecreateDeploymentStrategyType), string(appsv1.RollingUpdateDeploymentStrategyType)}
		return field.ErrorList{field.NotSupported(fldPath, s, valid)}
	}
	return nil
}

func validateRollingUpdate(ru *appsv1.RollingUpdateDeployment, fldPath *field.Path) field.ErrorList {
	unavailable, surge := orZero(ru.MaxUnavailable), orZero(ru.MaxSurge)
	errs := validateIntOrPercent(unavailable, fldPath.Child("maxUnavailable"))
	errs = append(errs, validateIntOrPercent(surge, fldPath.Child("maxSurge"))...)
	if intOrPercentValue(unavailable) == 0 && intOrPercentValue(surge) == 0 {
		errs = append(errs, field.Invalid(fldPath.Child("maxUnavailable"), unavailable, "may not be 0 when `maxSurge` is 0"))
	}
	if v, isPercent := percentValue(unavailable); isPercent && v > 100 {
		errs = append(errs, field.Invalid(fldPath.Child("maxUnavailable"), unavailable, "must not be greater than 100%"))
	}
	return errs
}

func orZero(v *intstr.IntOrString) intstr.IntOrString {
	if v == nil {
		return intstr.FromInt32(0)
	}
	return *v
}

// validateIntOrPercent: a non-negative integer or a valid percentage.
func validateIntOrPercent(v intstr.IntOrString, fldPath *field.Path) field.ErrorList {
	if v.Type == intstr.String {
		var errs field.ErrorList
		for _, msg := range validation.IsValidPercent(v.StrVal) {
			errs = append(errs, field.Invalid(fldPath, v, msg))
		}
		return errs
	}
	return nonNegative(int64(v.IntValue()), fldPath)
}

func percentValue(v intstr.IntOrString) (int, bool) {
	if v.Type != intstr.String || len(validation.IsValidPercent(v.StrVal)) != 0 {
		return 0, false
	}
	n, _ := strconv.Atoi(v.StrVal[:len(v.StrVal)-1])
	return n, true
}

func intOrPercentValue(v intstr.IntOrString) int {
	if n, ok := percentValue(v); ok {
		return n
	}
	return v.IntValue()
}
