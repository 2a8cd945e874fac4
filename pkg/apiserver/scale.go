package apiserver

import (
	"net/http"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

var scaleGVK = autoscalingv1.SchemeGroupVersion.WithKind("Scale")

func newScale() runtime.Object { return &autoscalingv1.Scale{} }

// scaler is the kind's Scaler, or a 404 for kinds without a scale
// subresource.
func scaler(q request) (registry.Scaler, error) {
	sc, ok := q.res.Strategy.(registry.Scaler)
	if !ok {
		return nil, errPathNotFound()
	}
	return sc, nil
}

// scaleOf is obj's autoscaling/v1 Scale, with the parent's identity and
// resourceVersion.
func scaleOf(sc registry.Scaler, obj runtime.Object) *autoscalingv1.Scale {
	scale := sc.Scale(obj)
	m, _ := meta.Accessor(obj)
	scale.TypeMeta = metav1TypeMeta(scaleGVK)
	scale.Name, scale.Namespace, scale.UID = m.GetName(), m.GetNamespace(), m.GetUID()
	scale.ResourceVersion, scale.CreationTimestamp = m.GetResourceVersion(), m.GetCreationTimestamp()
	return scale
}

// getScale answers GET .../scale.
func (s *Server) getScale(w http.ResponseWriter, r *http.Request, q request) {
	out, err := negotiate(r)
	if err != nil {
		writeError(w, err)
		return
	}
	sc, err := scaler(q)
	if err != nil {
		writeError(w, err)
		return
	}
	kv, err := s.getKV(r.Context(), q)
	if err != nil {
		writeError(w, err)
		return
	}
	obj, err := decodeStored(q.res, kv)
	if err != nil {
		writeError(w, err)
		return
	}
	out.view = viewObject
	s.writeObject(w, out, http.StatusOK, scaleOf(sc, obj))
}

// updateScale answers PUT .../scale: the Scale's resourceVersion, when
// set, is a precondition on the parent.
func (s *Server) updateScale(w http.ResponseWriter, r *http.Request, q request) {
	out, dryRun, err := negotiateWrite(r)
	if err != nil {
		writeError(w, err)
		return
	}
	dec, err := readObject(w, r, scaleGVK, newScale)
	if err != nil {
		writeError(w, err)
		return
	}
	scale := dec.obj.(*autoscalingv1.Scale)
	if scale.Name != "" && scale.Name != q.name {
		writeError(w, apierrors.NewBadRequest("the name of the object ("+scale.Name+") does not match the name on the URL ("+q.name+")"))
		return
	}
	s.writeScaled(w, r, q, out, dryRun, dec.warnings, func(*autoscalingv1.Scale) (*autoscalingv1.Scale, error) {
		return scale, nil
	})
}

// patchScale answers PATCH .../scale (kubectl scale sends a merge patch).
func (s *Server) patchScale(w http.ResponseWriter, r *http.Request, q request, out output, p *patchRequest, dryRun bool) {
	s.writeScaled(w, r, q, out, dryRun, nil, func(cur *autoscalingv1.Scale) (*autoscalingv1.Scale, error) {
		p.warnings = nil
		obj, err := p.apply(cur, scaleGVK, newScale)
		if err != nil {
			return nil, err
		}
		return obj.(*autoscalingv1.Scale), nil
	})
}

// writeScaled sets spec.replicas from the Scale that want builds out of
// the current one, and answers the new Scale.
func (s *Server) writeScaled(w http.ResponseWriter, r *http.Request, q request, out output, dryRun bool, warnings []string,
	want func(cur *autoscalingv1.Scale) (*autoscalingv1.Scale, error)) {
	sc, err := scaler(q)
	if err != nil {
		writeError(w, err)
		return
	}
	obj, err := s.applyUpdate(r.Context(), q, dryRun, func(cur runtime.Object) (runtime.Object, error) {
		scale, err := want(scaleOf(sc, cur))
		if err != nil {
			return nil, err
		}
		if err := checkRV(q, cur, scale.ResourceVersion); err != nil {
			return nil, err
		}
		if scale.Spec.Replicas < 0 {
			return nil, apierrors.NewInvalid(schema.GroupKind{Group: "autoscaling", Kind: "Scale"}, q.name, field.ErrorList{
				field.Invalid(field.NewPath("spec", "replicas"), scale.Spec.Replicas, "must be greater than or equal to 0")})
		}
		sc.SetReplicas(cur, scale.Spec.Replicas)
		return cur, nil
	})
	if err != nil {
		writeError(w, err)
		return
	}
	addWarnings(w, warnings)
	out.view = viewObject
	s.writeObject(w, out, http.StatusOK, scaleOf(sc, obj))
}
