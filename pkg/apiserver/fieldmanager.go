package apiserver

// Field management: every write records who set which fields in
// metadata.managedFields, and server-side apply merges a manager's
// configuration by that record. The work is apimachinery's managedfields
// package (structured-merge-diff underneath), as in kube-apiserver; this
// file builds one field manager per resource and subresource and says
// where kube resets what a path may not change.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"unicode"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// fieldManagerMaxLength is the longest manager name kube-apiserver keeps
// from a User-Agent.
const fieldManagerMaxLength = 128

// managerKey carries the request's field manager in its context.
type managerKey struct{}

// withManager names who writes in ctx: the fieldManager query parameter,
// or, as kube-apiserver derives it, the User-Agent up to its first "/"
// (kubectl/v1.37.0 ... is "kubectl"), printable characters only.
func withManager(ctx context.Context, fieldManager, userAgent string) context.Context {
	if fieldManager == "" {
		fieldManager = managerFromUserAgent(userAgent)
	}
	return context.WithValue(ctx, managerKey{}, fieldManager)
}

func managerFromUserAgent(ua string) string {
	product, _, _ := strings.Cut(ua, "/")
	var b strings.Builder
	for _, r := range product {
		if !unicode.IsPrint(r) {
			continue
		}
		if b.Len() >= fieldManagerMaxLength {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// managerOf is the field manager withManager put in ctx; "" when none
// (an internal write).
func managerOf(ctx context.Context) string {
	m, _ := ctx.Value(managerKey{}).(string)
	return m
}

// fieldManagers builds and keeps the field manager of each resource and
// subresource the server writes. The registry can change while the
// server runs, so managers are built when first needed.
type fieldManagers struct {
	mu sync.Mutex
	m  map[fieldManagerKey]builtManager
	// typed knows the schemas of the built-in kinds (builtinTypes, built
	// on the first write); deduced treats any other object as made of
	// maps and atomic lists.
	typed   func() (managedfields.TypeConverter, error)
	deduced managedfields.TypeConverter
	// validateStructs types the built-in kinds' Go structs validated, as
	// kube-apiserver does (see trustedStructs); benchmarks compare.
	validateStructs bool
}

// fieldManagerKey names a path; the resource serving it may be replaced
// (a CRD's, when the CRD changes), so each manager remembers its own.
type fieldManagerKey struct {
	gvr         schema.GroupVersionResource
	subresource string
}

type builtManager struct {
	res *registry.Resource
	fm  *managedfields.FieldManager
}

func newFieldManagers() *fieldManagers {
	return &fieldManagers{
		m:       map[fieldManagerKey]builtManager{},
		typed:   builtinTypes,
		deduced: managedfields.NewDeducedTypeConverter(),
	}
}

// forRequest is the field manager of q's path. A view (scale) has its
// own, of the view's kind; a part (status) one of the parent's kind with
// the part's reset fields.
func (f *fieldManagers) forRequest(q request, reg *registry.Registry) (*managedfields.FieldManager, error) {
	key := fieldManagerKey{gvr: q.res.GroupVersionResource(), subresource: q.subresource}
	f.mu.Lock()
	defer f.mu.Unlock()
	if b, ok := f.m[key]; ok && b.res == q.res {
		return b.fm, nil
	}
	kind, newObj := q.res.GroupVersionKind(), q.res.New
	view := q.sub != nil && q.sub.View != nil
	if view {
		kind, newObj = q.sub.Kind, q.sub.View.New
	}
	var fm *managedfields.FieldManager
	var err error
	if q.res.Schema != nil && !view {
		fm, err = managedfields.NewDefaultCRDFieldManager(q.res.Schema.TypeConverter, unstructuredConverter{}, schemaDefaulter{q.res.Schema}, unstructuredConverter{},
			kind, kind.GroupVersion(), q.subresource, resetFields(q, kind.GroupVersion()))
	} else {
		var convertor runtime.ObjectConvertor = scheme.Scheme
		if !view {
			convertor = objectConvertorFor(q.res, reg)
		}
		var tc managedfields.TypeConverter
		if tc, err = f.converterFor(kind, newObj, view); err != nil {
			return nil, err
		}
		fm, err = managedfields.NewDefaultFieldManager(tc, convertor, scheme.Scheme, scheme.Scheme,
			kind, kind.GroupVersion(), q.subresource, resetFields(q, kind.GroupVersion()))
	}
	if err != nil {
		return nil, fmt.Errorf("field manager of %s: %w", q.res.Resource, err)
	}
	f.m[key] = builtManager{res: q.res, fm: fm}
	return fm, nil
}

// converterFor is the typed converter when it knows kind, the deduced one
// otherwise, and for a view's kind (autoscaling/v1 Scale, which
// client-go's converter, used before, did not know either).
func (f *fieldManagers) converterFor(kind schema.GroupVersionKind, newObj func() runtime.Object, view bool) (managedfields.TypeConverter, error) {
	if view {
		return f.deduced, nil
	}
	typed, err := f.typed()
	if err != nil {
		return nil, err
	}
	probe := newObj()
	probe.GetObjectKind().SetGroupVersionKind(kind)
	tv, err := typed.ObjectToTyped(probe)
	switch {
	case err != nil:
		return f.deduced, nil
	case f.validateStructs:
		return typed, nil
	}
	return trust(typed, kind, tv), nil
}

// resetFields are the fields a path's own rules put back whatever the
// client sent, so no manager owns them there: status on the main
// resource of a kind with a status part, spec on that part (kube's
// strategies' GetResetFields), status on a namespace's finalize.
func resetFields(q request, gv schema.GroupVersion) map[fieldpath.APIVersion]fieldpath.Filter {
	var paths []fieldpath.Path
	switch {
	case q.sub == nil:
		if _, ok := q.res.Subresources["status"]; ok {
			paths = append(paths, fieldpath.MakePathOrDie("status"))
		}
	case q.subresource == "status":
		paths = append(paths, fieldpath.MakePathOrDie("spec"))
	case q.subresource == "finalize":
		paths = append(paths, fieldpath.MakePathOrDie("status"))
	}
	if len(paths) == 0 {
		return nil
	}
	return fieldpath.NewExcludeFilterSetMap(map[fieldpath.APIVersion]*fieldpath.Set{
		fieldpath.APIVersion(gv.String()): fieldpath.NewSet(paths...),
	})
}

// unstructuredConverter converts, creates and defaults custom resources
// for their field manager. Versions differ only in apiVersion (conversion
// None), and defaults are the schema's, applied on decode.
type unstructuredConverter struct{}

func (unstructuredConverter) Convert(in, out, context interface{}) error {
	return fmt.Errorf("converting %T to %T is not supported", in, out)
}

func (unstructuredConverter) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	u, ok := in.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("converting %T: not a custom resource", in)
	}
	kind, ok := gv.KindForGroupVersionKinds([]schema.GroupVersionKind{u.GroupVersionKind()})
	if !ok {
		return nil, fmt.Errorf("%s cannot be converted to %v", u.GroupVersionKind(), gv)
	}
	out := u.DeepCopy()
	out.SetGroupVersionKind(kind)
	return out, nil
}

func (unstructuredConverter) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

func (unstructuredConverter) New(kind schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(kind)
	return u, nil
}

func (unstructuredConverter) Default(runtime.Object) {}

// schemaDefaulter fills a custom resource's schema defaults into what a
// server-side apply made, as kube-apiserver's CRD field manager does:
// the applied object was never decoded, so nothing else defaults it
// before validation (a CEL rule on a defaulted field would fail).
type schemaDefaulter struct{ schema *registry.Schema }

func (d schemaDefaulter) Default(obj runtime.Object) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		d.schema.Default(u)
	}
}
