package registry

// Actions: subresources a client creates to ask the server to do
// something to the parent object (pods/eviction), rather than to store
// the body. An action works on objects through Objects, so every rule a
// client's own request would meet (validation, preconditions, a pod's
// grace period, conflicts) applies to what it does.

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Action is a create-only subresource. The body is decoded as the
// Subresource's Kind into New(); Do answers the request. An answer that
// is a *metav1.Status with a Code is sent with that HTTP code (as
// kube-apiserver does); any other answer is sent with 201 Created.
type Action struct {
	New func() runtime.Object
	Do  func(ctx context.Context, objs Objects, req ActionRequest) (runtime.Object, error)
}

// ActionRequest is one call of an action: the parent object's namespace
// and name (from the URL), the decoded body, and whether the request is a
// dry run (dryRun=All).
type ActionRequest struct {
	Namespace string
	Name      string
	Body      runtime.Object
	DryRun    bool
}

// Objects reads and writes objects of any served resource, each call
// applying the same rules, and answering the same errors, as the
// matching request from a client would.
type Objects interface {
	// Get reads one object.
	Get(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) (runtime.Object, error)
	// List reads every object of a namespace ("" for all, or for
	// cluster-scoped kinds).
	List(ctx context.Context, gvr schema.GroupVersionResource, namespace string) ([]runtime.Object, error)
	// Update writes obj (whose resourceVersion, when set, is a
	// precondition) through subresource ("" for the main resource,
	// "status" for the status part).
	Update(ctx context.Context, gvr schema.GroupVersionResource, subresource string, obj runtime.Object, dryRun bool) (runtime.Object, error)
	// Delete deletes one object as a DELETE with opts would.
	Delete(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string, opts *metav1.DeleteOptions) error
}
