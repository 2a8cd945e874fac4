package apiserver

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// generateNameSuffix is the length of the random part of a generated
// name, as kube-apiserver's (web-x7k2p).
const generateNameSuffix = 5

// maxGeneratedBase keeps a generated name within 63 characters.
const maxGeneratedBase = 63 - generateNameSuffix

// generateName turns metadata.generateName into a name.
func generateName(base string) string {
	if len(base) > maxGeneratedBase {
		base = base[:maxGeneratedBase]
	}
	return base + utilrand.String(generateNameSuffix)
}

// checkRequestMeta compares the body's name and namespace with the URL's,
// filling in what the body left out, and returns obj's metadata.
func checkRequestMeta(q request, obj runtime.Object) (metav1.Object, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	if q.res.Namespaced {
		switch ns := m.GetNamespace(); {
		case ns == "":
			m.SetNamespace(q.namespace)
		case ns != q.namespace:
			return nil, apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
	} else {
		m.SetNamespace("")
	}
	if q.name != "" {
		switch name := m.GetName(); {
		case name == "":
			m.SetName(q.name)
		case name != q.name:
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, q.name))
		}
	}
	return m, nil
}

// prepareCreate sets what the server owns on a new object: uid, creation
// time, generation, a generated name (and says whether it made one); it
// clears what a client may not set.
func (s *Server) prepareCreate(q request, obj runtime.Object) (m metav1.Object, generated bool, err error) {
	m, err = checkRequestMeta(q, obj)
	if err != nil {
		return nil, false, err
	}
	if m.GetName() == "" && m.GetGenerateName() != "" {
		m.SetName(generateName(m.GetGenerateName()))
		generated = true
	}
	// A missing name is reported by the strategy's Validate, together with
	// every other cause, as kube-apiserver does.
	m.SetUID(uuid.NewUUID())
	m.SetCreationTimestamp(metav1.NewTime(s.now().UTC().Truncate(1e9)))
	m.SetResourceVersion("")
	m.SetDeletionTimestamp(nil)
	m.SetDeletionGracePeriodSeconds(nil)
	m.SetSelfLink("")
	m.SetGeneration(0)
	q.res.Strategy.PrepareForCreate(obj)
	if q.res.Generation != nil {
		m.SetGeneration(1)
	}
	return m, generated, nil
}

// keepSystemMeta carries over from old what no write may change: identity,
// creation time and deletion state; and moves generation as the kind's
// rule says. Writes of a part (status) never move it. managedFields are
// the field manager's to decide (trackUpdate).
func keepSystemMeta(q request, obj, old runtime.Object) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	o, err := meta.Accessor(old)
	if err != nil {
		return err
	}
	// A uid in the body is a precondition, as in kube-apiserver: a write
	// meant for an earlier object of the same name must not land here.
	if uid := m.GetUID(); uid != "" && uid != o.GetUID() {
		return apierrors.NewConflict(q.gr(), o.GetName(),
			//lint:ignore ST1005 kube-apiserver's wording, capital included
			fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", uid, o.GetUID()))
	}
	m.SetName(o.GetName())
	m.SetNamespace(o.GetNamespace())
	m.SetUID(o.GetUID())
	m.SetCreationTimestamp(o.GetCreationTimestamp())
	m.SetDeletionTimestamp(o.GetDeletionTimestamp())
	m.SetDeletionGracePeriodSeconds(o.GetDeletionGracePeriodSeconds())
	m.SetSelfLink("")
	m.SetGeneration(o.GetGeneration())
	ownRules := q.sub != nil && q.sub.View == nil
	if q.res.Generation != nil && !ownRules && q.res.Generation(obj, old) {
		m.SetGeneration(o.GetGeneration() + 1)
	}
	return nil
}

// invalid turns validation errors into kube-apiserver's 422. A converted
// resource's errors name the stored group, as kube-apiserver's do
// (`Event "x" is invalid` for events.k8s.io events, which core stores).
func invalid(res *registry.Resource, name string, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	gk := res.GroupVersionKind().GroupKind()
	if res.StoredAs != nil {
		gk.Group = res.StoredAs.Group
	}
	return apierrors.NewInvalid(gk, name, errs)
}
