package registry

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Resource is one served resource and every rule the generic handlers
// apply to it. The handlers name no kind: what differs between kinds is
// here, in the kind's registry file.
type Resource struct {
	Group    string // "" for core
	Version  string // "v1"
	Resource string // plural, lower case: "deployments"
	Kind     string // "Deployment"
	ListKind string // "DeploymentList"
	Singular string // "deployment"

	ShortNames []string
	Categories []string // "all" for the kinds `kubectl get all` shows
	Namespaced bool
	// Verbs the main resource serves, in discovery's (alphabetical) order;
	// nil means every verb (see AllVerbs).
	Verbs []string

	// New and NewList return empty typed objects of the kind.
	New     func() runtime.Object
	NewList func() runtime.Object

	// Strategy holds the rules of create and of updates of the main
	// resource.
	Strategy Strategy
	// Subresources are the paths below an object (status, scale,
	// finalize, log...), each with its own rules.
	Subresources map[string]*Subresource
	// Generation says whether a write moves metadata.generation. nil: the
	// kind has no generation (kube-apiserver leaves it unset). It applies
	// to writes of the main resource and of views (scale), never to
	// writes of a part (status): those cannot change what it compares.
	Generation func(obj, old runtime.Object) bool
	// Delete is how an object goes away; nil: DeleteWhenUnfinalized.
	Delete DeleteStrategy
	// OrphanByDefault makes a delete that names no propagationPolicy
	// orphan the dependents, as kube-apiserver keeps doing for batch/v1
	// Jobs; false: background deletion.
	OrphanByDefault bool
	// Table renders the server-side Table kubectl prints.
	Table TableFunc
	// FieldSet is what field selectors match against; nil: metadata.name
	// (and metadata.namespace for namespaced kinds).
	FieldSet func(obj runtime.Object) fields.Set
	// Hooks run around the store writes of the kind's objects, for kinds
	// that hold something outside them (see WriteHooks); nil: none.
	Hooks WriteHooks
	// Warning, when set, is sent as a Warning header with every request
	// on the resource and its subresources, whatever the verb and the
	// outcome (kube's deprecation notice for v1 Endpoints).
	Warning string
	// CreateInTerminatingNamespace exempts the kind from the rule that
	// nothing new is created in a namespace being deleted (events, as
	// kube's NamespaceLifecycle admission exempts them).
	CreateInTerminatingNamespace bool

	// StoredAs, when set, says the objects are another resource's, kept
	// under its keys in its type and converted on the way in and out
	// (events.k8s.io/v1 events are core/v1 events). nil: the resource
	// stores its own objects.
	StoredAs *StoredAs
	// Create, when set, makes the resource a computed one: a create calls
	// it with the decoded object and answers what it returns; nothing is
	// stored (the review kinds). Such a resource serves only create.
	Create CreateFunc

	// AfterWrite, when set, runs after every successful store write of
	// an object of the kind (create, update, a delete's marking, delete),
	// before the write is answered: CRDs use it to be served, or no
	// longer served, by the time their client hears back.
	AfterWrite func(ctx context.Context)

	// Schema, when set, says the objects are *unstructured.Unstructured
	// described by a schema (a custom resource's, from its CRD) instead
	// of Go structs.
	Schema *Schema
}

// Schema is what a custom resource's structural schema does that Go
// structs do for a built-in kind: it decides which fields exist, fills
// defaults, and describes the object to field management and to the
// OpenAPI documents. Validation is the Strategy's, as for every kind.
type Schema struct {
	// Prune drops the fields the schema does not declare and returns
	// their paths ("spec.foo"), which fieldValidation reports as unknown
	// fields.
	Prune func(obj *unstructured.Unstructured) []string
	// Default fills the schema's defaults. It runs on every decoded
	// request body and on every object read from the store, as
	// kube-apiserver defaults custom resources.
	Default func(obj *unstructured.Unstructured)
	// TypeConverter is the object's schema for managedFields.
	TypeConverter managedfields.TypeConverter
	// OpenAPI is the object's schema, in OpenAPI v3 form, for the
	// OpenAPI documents (apiVersion, kind and metadata included).
	OpenAPI *spec.Schema
	// ToStorage drops what the storage version does not declare from an
	// object about to be stored; nil when this resource's version is the
	// storage version.
	ToStorage func(obj *unstructured.Unstructured)
	// StorageVersion is the CRD version the objects are kept in, which
	// discovery's storageVersionHash names for every served version;
	// "": this resource's own version.
	StorageVersion string
}

// StoredAs names the resource whose keys hold a converted resource's
// objects, and converts between the two types. Both conversions get and
// return typed objects; metadata is carried across unchanged.
type StoredAs struct {
	Group    string // "" for core
	Version  string // the version objects are stored in: "v1"
	Resource string // plural: "events"
	// New returns an empty object of the stored type.
	New func() runtime.Object
	// ToStored converts an object of the served type to the stored type.
	ToStored func(obj runtime.Object) (runtime.Object, error)
	// FromStored converts a stored object to the served type.
	FromStored func(stored runtime.Object) (runtime.Object, error)
}

// CreateFunc computes the answer to a create of a computed resource from
// the request's object. ctx carries the requesting user (package authn).
type CreateFunc func(ctx context.Context, obj runtime.Object) (runtime.Object, error)

// Strategy holds one kind's rules for create and for updates of the main
// resource, as kube-apiserver's REST strategies do. Every object passed in
// is the kind's typed Go struct. The handlers set uid, timestamps,
// resourceVersion and generation; a Strategy only says what the kind's
// rules are.
type Strategy interface {
	// PrepareForCreate clears what a client may not set on create (status,
	// for kinds with a status subresource) and applies the kind's defaults.
	PrepareForCreate(obj runtime.Object)
	// PrepareForUpdate keeps from old what an update of the main resource
	// may not change (status, for kinds with a status subresource) and
	// applies defaults to obj.
	PrepareForUpdate(obj, old runtime.Object)
	// Validate checks a new object, with kube-apiserver's field paths and
	// messages.
	Validate(obj runtime.Object) field.ErrorList
	// ValidateUpdate checks an update (immutable fields and all of Validate).
	ValidateUpdate(obj, old runtime.Object) field.ErrorList
}

// Warner is implemented by strategies that warn about an object they
// accept, as kube-apiserver's WarningsOnCreate and WarningsOnUpdate do (a
// TLS Secret whose certificate is not PEM). The warnings reach the client
// as Warning headers on the answer to a create or an update of the main
// resource.
type Warner interface {
	Warnings(obj runtime.Object) []string
}

// Subresource is one path below an object. It is one of four things:
//
//   - a part of the object with its own write rules (status, finalize):
//     PrepareForUpdate keeps from old what this path may not change, and
//     ValidateUpdate replaces the main resource's validation;
//   - a view of the object in another kind (scale): View says how to read
//     and write it, and the main resource's rules apply to the result;
//   - an action a create asks for (pods/eviction): Action reads the
//     request's body and acts on objects through the server's rules;
//   - a path miniapi can never serve (pods/log): Unavailable is the
//     message every request gets.
type Subresource struct {
	// Kind is what the subresource answers with, for discovery (a group
	// and version only when they differ from the parent's); zero: the
	// parent's kind.
	Kind schema.GroupVersionKind
	// Verbs it serves, for discovery; nil: get, patch and update.
	Verbs []string

	PrepareForUpdate func(obj, old runtime.Object)
	ValidateUpdate   func(obj, old runtime.Object) field.ErrorList

	View *View

	Action *Action

	Unavailable string
}

// SubresourceVerbs are the verbs of a subresource that does not list its
// own.
var SubresourceVerbs = []string{"get", "patch", "update"}

// View is a subresource served as another kind (the Subresource's Kind),
// built from its parent object and written back into it (autoscaling/v1
// Scale).
type View struct {
	New func() runtime.Object
	// Get builds the view of parent.
	Get func(parent runtime.Object) runtime.Object
	// Validate checks a view a client wrote, before it is applied.
	Validate func(view runtime.Object) field.ErrorList
	// Apply copies what a client may change from view into parent.
	Apply func(parent, view runtime.Object)
	// ReplicasPath is where parent keeps the replicas a Scale sets, for
	// field management; nil: spec.replicas.
	ReplicasPath []interface{}
}

// DeleteStrategy is how an object of a kind goes away. The handlers add
// the finalizer a propagationPolicy asks for before calling it.
type DeleteStrategy interface {
	// BeginDelete applies a delete request to obj (a copy it may change).
	// keep says the object must stay for now (finalizers, a grace period);
	// changed says obj was modified and must be written. An error refuses
	// the delete.
	BeginDelete(obj runtime.Object, opts *metav1.DeleteOptions, now time.Time) (changed, keep bool, err error)
	// Released reports whether obj, which is being deleted, has nothing
	// left that keeps it: an update that gets it there deletes it.
	Released(obj runtime.Object) bool
}

// TableFunc renders obj, a single typed object or a typed list, as a
// Table with every column, the wide (priority 1) ones included. Each row's
// Object holds the item itself; the handler replaces it as includeObject
// asks. now is the time ages are measured against.
type TableFunc func(obj runtime.Object, now time.Time) (*metav1.Table, error)

// AllVerbs are the verbs of a resource that does not list its own, in
// kube-apiserver's order.
var AllVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// GroupVersionResource names the resource.
func (r *Resource) GroupVersionResource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource}
}

// GroupVersionKind names the kind.
func (r *Resource) GroupVersionKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
}

// GroupResource names the resource as errors do (deployments.apps).
func (r *Resource) GroupResource() schema.GroupResource {
	return schema.GroupResource{Group: r.Group, Resource: r.Resource}
}

// Serves reports whether the main resource serves verb.
func (r *Resource) Serves(verb string) bool {
	verbs := r.Verbs
	if verbs == nil {
		verbs = AllVerbs
	}
	for _, v := range verbs {
		if v == verb {
			return true
		}
	}
	return false
}

// Fields is obj's field set for field selectors.
func (r *Resource) Fields(obj runtime.Object) fields.Set {
	if r.FieldSet != nil {
		return r.FieldSet(obj)
	}
	m, ok := obj.(metav1.Object)
	if !ok {
		return fields.Set{}
	}
	return metaFields(m, r.Namespaced)
}

// Serves reports whether the subresource serves verb.
func (s *Subresource) Serves(verb string) bool {
	verbs := s.Verbs
	if verbs == nil {
		verbs = SubresourceVerbs
	}
	for _, v := range verbs {
		if v == verb {
			return true
		}
	}
	return false
}

// Converted reports whether objects change between the store and the
// client (stored as another type, or pruned and defaulted by a schema on
// every read), so stored bytes can never be sent as they are.
func (r *Resource) Converted() bool { return r.StoredAs != nil || r.Schema != nil }

// StorageGroupResource is the group and resource whose keys hold the
// objects: the resource's own, or those StoredAs names.
func (r *Resource) StorageGroupResource() schema.GroupResource {
	if r.StoredAs != nil {
		return schema.GroupResource{Group: r.StoredAs.Group, Resource: r.StoredAs.Resource}
	}
	return r.GroupResource()
}

// StorageVersionKind is the group, version and kind the objects are
// stored as (discovery's storageVersionHash is made from it).
func (r *Resource) StorageVersionKind() schema.GroupVersionKind {
	if r.StoredAs != nil {
		return schema.GroupVersionKind{Group: r.StoredAs.Group, Version: r.StoredAs.Version, Kind: r.Kind}
	}
	if r.Schema != nil && r.Schema.StorageVersion != "" {
		return schema.GroupVersionKind{Group: r.Group, Version: r.Schema.StorageVersion, Kind: r.Kind}
	}
	return r.GroupVersionKind()
}

// KeyPrefix is the start of the store keys that hold the objects:
// /<group>/<resource>/, with "core" for the legacy group. A converted
// resource (StoredAs) uses the keys of the resource that holds its
// objects.
func (r *Resource) KeyPrefix() string {
	gr := r.StorageGroupResource()
	group := gr.Group
	if group == "" {
		group = "core"
	}
	return "/" + group + "/" + gr.Resource + "/"
}

// Deleter is the kind's DeleteStrategy.
func (r *Resource) Deleter() DeleteStrategy {
	if r.Delete != nil {
		return r.Delete
	}
	return DeleteWhenUnfinalized{}
}
