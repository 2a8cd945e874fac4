package apiserver

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// Patch types kube-apiserver serves.
const (
	jsonPatchType      = "application/json-patch+json"
	mergePatchType     = "application/merge-patch+json"
	strategicPatchType = "application/strategic-merge-patch+json"
	// applyPatchType is server-side apply (managedwrite.go): the
	// configuration is merged by field ownership, the object created when
	// missing.
	applyPatchType = "application/apply-patch+yaml"
)

// maxJSONPatchOperations is kube-apiserver's cap on the operations of one
// JSON patch, so that one request cannot ask for unbounded work inside
// the update's retry loop.
const maxJSONPatchOperations = 10000

// patchRequest is a decoded PATCH: its type, body and field validation.
type patchRequest struct {
	typ        string
	body       []byte
	validation string
	warnings   []string
}

func readPatch(w http.ResponseWriter, r *http.Request) (*patchRequest, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return nil, errUnsupportedPatch()
	}
	switch mt {
	case jsonPatchType, mergePatchType, strategicPatchType, applyPatchType:
	default:
		return nil, errUnsupportedPatch()
	}
	if mt == applyPatchType && r.URL.Query().Get("fieldManager") == "" {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: "meta.k8s.io", Kind: "PatchOptions"}, "",
			field.ErrorList{field.Required(field.NewPath("fieldManager"), "is required for apply patch")})
	}
	if mt != applyPatchType && r.URL.Query().Has("force") {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: "meta.k8s.io", Kind: "PatchOptions"}, "",
			field.ErrorList{field.Forbidden(field.NewPath("force"), "may not be specified for non-apply patch")})
	}
	validation, err := fieldValidation(r)
	if err != nil {
		return nil, err
	}
	body, err := readBody(w, r)
	if err != nil {
		return nil, err
	}
	if mt == applyPatchType {
		if body, err = yaml.YAMLToJSON(body); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding YAML: %v", err))
		}
	}
	return &patchRequest{typ: mt, body: body, validation: validation}, nil
}

// apply patches cur (any object with its kind set) and decodes the result
// as gvk's kind, checking unknown fields as fieldValidation asks.
func (p *patchRequest) apply(cur runtime.Object, gvk schema.GroupVersionKind, newObj func() runtime.Object, sch *registry.Schema) (runtime.Object, error) {
	original, err := json.Marshal(cur)
	if err != nil {
		return nil, err
	}
	var patched []byte
	switch p.typ {
	case jsonPatchType:
		ops, err := jsonpatch.DecodePatch(p.body)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		if len(ops) > maxJSONPatchOperations {
			return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf(
				"The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOperations, len(ops)))
		}
		if patched, err = ops.Apply(original); err != nil {
			return nil, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
		}
	case mergePatchType:
		if patched, err = jsonpatch.MergePatch(original, p.body); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
	case strategicPatchType:
		if patched, err = strategicpatch.StrategicMergePatch(original, p.body, newObj()); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
	}
	info, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), mediaJSON)
	dec, err := decodeWith(info, p.validation, patched, gvk, newObj, sch)
	if err != nil {
		return nil, err
	}
	p.warnings = append(p.warnings, dec.warnings...)
	return dec.obj, nil
}

// patch answers PATCH of an object or its status or scale.
func (s *Server) patch(w http.ResponseWriter, r *http.Request, q request) {
	out, dryRun, err := negotiateWrite(r, q)
	if err != nil {
		writeError(w, err)
		return
	}
	p, err := readPatch(w, r)
	if q.res.Schema != nil && (apierrors.IsUnsupportedMediaType(err) || err == nil && p.typ == strategicPatchType) {
		// A custom resource has no patch strategies; kube-apiserver's
		// handler for them names the patch types it takes.
		err = errUnsupportedCustomPatch()
	}
	if err != nil {
		writeError(w, err)
		return
	}
	if q.sub != nil && q.sub.View != nil {
		s.patchView(w, r, q, out, p, dryRun)
		return
	}
	ctx := r.Context()
	q.applied = p.typ == applyPatchType
	force := applyForce(r.URL.Query())
	obj, err := s.applyUpdate(ctx, q, dryRun, func(cur runtime.Object) (runtime.Object, error) {
		curRV := resourceVersionOf(cur)
		p.warnings = nil
		var obj runtime.Object
		var err error
		if q.applied {
			obj, err = s.applyConfig(ctx, q, cur, p.body, force)
		} else {
			obj, err = p.apply(cur, q.res.GroupVersionKind(), q.res.New, q.res.Schema)
		}
		if err != nil {
			return nil, err
		}
		m, err := checkRequestMeta(q, obj)
		if err != nil {
			return nil, err
		}
		// A patch that sets metadata.resourceVersion makes it a precondition.
		if rv := m.GetResourceVersion(); rv != curRV {
			return nil, errConflict(q.gr(), q.name)
		}
		return obj, nil
	})
	if apierrors.IsNotFound(err) && q.applied && q.sub == nil {
		s.applyCreate(w, r, q, out, p, force, dryRun)
		return
	}
	s.answerWrite(w, q, out, http.StatusOK, obj, p.warnings, err)
}

// applyCreate answers a server-side apply of a missing object by creating
// it from the applied configuration, as kube-apiserver does: the apply
// over an empty object gives the object and its managedFields.
func (s *Server) applyCreate(w http.ResponseWriter, r *http.Request, q request, out output, p *patchRequest, force, dryRun bool) {
	live := q.res.New()
	live.GetObjectKind().SetGroupVersionKind(q.res.GroupVersionKind())
	obj, err := s.applyConfig(r.Context(), q, live, p.body, force)
	if err == nil {
		_, err = checkRequestMeta(q, obj)
	}
	if err == nil {
		create := q
		create.name = ""
		obj, err = s.createObject(r.Context(), create, obj, dryRun)
	}
	s.answerWrite(w, q, out, http.StatusCreated, obj, p.warnings, err)
}

func resourceVersionOf(obj runtime.Object) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return ""
	}
	return m.GetResourceVersion()
}
