package registry

// The access reviews of authorization.k8s.io/v1: create-only, nothing
// stored, the answer computed. miniapi enforces no authorization, so every
// review is allowed, and a rules review lists what kube's default roles
// give every user plus cluster-admin's wildcard, which miniapi grants to
// everyone.

import (
	"context"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/authn"
)

const authorizationGroup = "authorization.k8s.io"

// allowedReason is why every access review is allowed.
const allowedReason = "miniapi enforces no authorization: every user may do everything"

// createOnly are the verbs of a computed resource.
var createOnly = []string{"create"}

// review is a computed, cluster-scoped, create-only resource.
func review(group, resource, kind string, newObj func() runtime.Object, create CreateFunc) *Resource {
	return &Resource{
		Group: group, Version: "v1", Resource: resource, Kind: kind, Singular: strings.ToLower(kind),
		Verbs: createOnly, New: newObj, Create: create,
	}
}

func localSubjectAccessReviews() *Resource {
	r := review(authorizationGroup, "localsubjectaccessreviews", "LocalSubjectAccessReview",
		func() runtime.Object { return &authorizationv1.LocalSubjectAccessReview{} }, createLocalSubjectAccessReview)
	r.Namespaced = true
	return r
}

func selfSubjectAccessReviews() *Resource {
	return review(authorizationGroup, "selfsubjectaccessreviews", "SelfSubjectAccessReview",
		func() runtime.Object { return &authorizationv1.SelfSubjectAccessReview{} }, createSelfSubjectAccessReview)
}

func selfSubjectRulesReviews() *Resource {
	return review(authorizationGroup, "selfsubjectrulesreviews", "SelfSubjectRulesReview",
		func() runtime.Object { return &authorizationv1.SelfSubjectRulesReview{} }, createSelfSubjectRulesReview)
}

func subjectAccessReviews() *Resource {
	return review(authorizationGroup, "subjectaccessreviews", "SubjectAccessReview",
		func() runtime.Object { return &authorizationv1.SubjectAccessReview{} }, createSubjectAccessReview)
}

// allowed is every access review's answer.
func allowed() authorizationv1.SubjectAccessReviewStatus {
	return authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: allowedReason}
}

func createSelfSubjectAccessReview(ctx context.Context, obj runtime.Object) (runtime.Object, error) {
	r := obj.(*authorizationv1.SelfSubjectAccessReview)
	errs := validateAttributes(r.Spec.ResourceAttributes != nil, r.Spec.NonResourceAttributes != nil, r.Spec.NonResourceAttributes)
	errs = append(errs, metadataMustBeEmpty(r.ObjectMeta)...)
	if len(errs) > 0 {
		return nil, reviewInvalid("SelfSubjectAccessReview", errs)
	}
	if _, ok := authn.UserFrom(ctx); !ok {
		return nil, apierrors.NewBadRequest("no user present on request")
	}
	r.Status = allowed()
	return r, nil
}

func createSubjectAccessReview(_ context.Context, obj runtime.Object) (runtime.Object, error) {
	r := obj.(*authorizationv1.SubjectAccessReview)
	errs := validateAttributes(r.Spec.ResourceAttributes != nil, r.Spec.NonResourceAttributes != nil, r.Spec.NonResourceAttributes)
	if r.Spec.User == "" && len(r.Spec.Groups) == 0 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "user"), r.Spec.User, "at least one of user or group must be specified"))
	}
	errs = append(errs, metadataMustBeEmpty(r.ObjectMeta)...)
	if len(errs) > 0 {
		return nil, reviewInvalid("SubjectAccessReview", errs)
	}
	r.Status = allowed()
	return r, nil
}

// createLocalSubjectAccessReview is a SubjectAccessReview about one
// namespace, the one in its path.
func createLocalSubjectAccessReview(_ context.Context, obj runtime.Object) (runtime.Object, error) {
	r := obj.(*authorizationv1.LocalSubjectAccessReview)
	errs := validateAttributes(r.Spec.ResourceAttributes != nil, r.Spec.NonResourceAttributes != nil, r.Spec.NonResourceAttributes)
	if r.Spec.User == "" && len(r.Spec.Groups) == 0 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "user"), r.Spec.User, "at least one of user or group must be specified"))
	}
	shallow := r.ObjectMeta
	shallow.Namespace, shallow.ManagedFields = "", nil
	if !equality.Semantic.DeepEqual(metav1.ObjectMeta{}, shallow) {
		errs = append(errs, field.Invalid(field.NewPath("metadata"), r.ObjectMeta, "must be empty except for namespace"))
	}
	if a := r.Spec.ResourceAttributes; a != nil && a.Namespace != r.Namespace {
		errs = append(errs, field.Invalid(field.NewPath("spec.resourceAttributes.namespace"), a.Namespace, "must match metadata.namespace"))
	}
	if r.Spec.NonResourceAttributes != nil {
		errs = append(errs, field.Invalid(field.NewPath("spec.nonResourceAttributes"), r.Spec.NonResourceAttributes, "disallowed on this kind of request"))
	}
	if len(errs) > 0 {
		return nil, reviewInvalid("LocalSubjectAccessReview", errs)
	}
	r.Status = allowed()
	return r, nil
}

// validateAttributes: a review asks about a resource or a URL, not both.
func validateAttributes(resource, nonResource bool, nonResourceValue *authorizationv1.NonResourceAttributes) field.ErrorList {
	spec := field.NewPath("spec")
	switch {
	case resource && nonResource:
		return field.ErrorList{field.Invalid(spec.Child("nonResourceAttributes"), nonResourceValue, "cannot be specified in combination with resourceAttributes")}
	case !resource && !nonResource:
		return field.ErrorList{field.Invalid(spec.Child("resourceAttributes"), nonResourceValue, "exactly one of nonResourceAttributes or resourceAttributes must be specified")}
	}
	return nil
}

// metadataMustBeEmpty: a review is no stored object; only managedFields
// (which clients send on every write) may be set.
func metadataMustBeEmpty(m metav1.ObjectMeta) field.ErrorList {
	shallow := m
	shallow.ManagedFields = nil
	if equality.Semantic.DeepEqual(metav1.ObjectMeta{}, shallow) {
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("metadata"), m, "must be empty")}
}

func reviewInvalid(kind string, errs field.ErrorList) error {
	return apierrors.NewInvalid(schema.GroupKind{Group: authorizationGroup, Kind: kind}, "", errs)
}

// createSelfSubjectRulesReview lists what the user may do: everything.
// The list is the one kube-apiserver gives a cluster-admin, the rules of
// the default roles every user has (system:basic-user, system:discovery,
// system:public-info-viewer) followed by the wildcards, since in miniapi
// every user is one.
func createSelfSubjectRulesReview(ctx context.Context, obj runtime.Object) (runtime.Object, error) {
	r := obj.(*authorizationv1.SelfSubjectRulesReview)
	if _, ok := authn.UserFrom(ctx); !ok {
		return nil, apierrors.NewBadRequest("no user present on request")
	}
	if r.Spec.Namespace == "" {
		return nil, apierrors.NewBadRequest("no namespace on request")
	}
	return &authorizationv1.SelfSubjectRulesReview{
		Status: authorizationv1.SubjectRulesReviewStatus{
			ResourceRules:    everyUsersResourceRules(),
			NonResourceRules: everyUsersNonResourceRules(),
		},
	}, nil
}

func everyUsersResourceRules() []authorizationv1.ResourceRule {
	return []authorizationv1.ResourceRule{
		{Verbs: createOnly, APIGroups: []string{authorizationGroup}, Resources: []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews"}},
		{Verbs: createOnly, APIGroups: []string{authenticationGroup}, Resources: []string{"selfsubjectreviews"}},
		{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
	}
}

func everyUsersNonResourceRules() []authorizationv1.NonResourceRule {
	get := []string{"get"}
	return []authorizationv1.NonResourceRule{
		{Verbs: get, NonResourceURLs: []string{"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/"}},
		{Verbs: get, NonResourceURLs: []string{"/healthz", "/livez", "/readyz", "/version", "/version/"}},
		{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
	}
}
