package apiserver

import (
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// selector is a request's labelSelector and fieldSelector.
type selector struct {
	labels labels.Selector
	fields fields.Selector
}

// empty reports whether the selector matches everything, so objects need
// not be decoded to be filtered.
func (sel selector) empty() bool { return sel.labels.Empty() && sel.fields.Empty() }

// parseSelector reads labelSelector and fieldSelector, refusing field
// labels the kind does not support with kube-apiserver's message.
func parseSelector(r *http.Request, res *registry.Resource) (selector, error) {
	query := r.URL.Query()
	ls, err := labels.Parse(query.Get("labelSelector"))
	if err != nil {
		return selector{}, apierrors.NewBadRequest(err.Error())
	}
	fs, err := fields.ParseSelector(query.Get("fieldSelector"))
	if err != nil {
		return selector{}, apierrors.NewBadRequest(err.Error())
	}
	supported := res.Fields(res.New())
	for _, req := range fs.Requirements() {
		if _, ok := supported[req.Field]; !ok {
			return selector{}, apierrors.NewBadRequest(fmt.Sprintf("field label not supported: %s", req.Field))
		}
	}
	return selector{labels: ls, fields: fs}, nil
}

// matches reports whether obj is selected.
func (sel selector) matches(res *registry.Resource, obj runtime.Object) bool {
	if sel.empty() {
		return true
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	if !sel.labels.Matches(labels.Set(m.GetLabels())) {
		return false
	}
	return sel.fields.Empty() || sel.fields.Matches(res.Fields(obj))
}

// exactName is the name a fieldSelector pins with metadata.name=X, if any.
func (sel selector) exactName() (string, bool) {
	return sel.fields.RequiresExactMatch("metadata.name")
}

// narrow turns an all-namespaces request whose fieldSelector pins
// metadata.namespace into a request for that namespace, so the store reads
// only its keys.
func (sel selector) narrow(q request) request {
	if q.res.Namespaced && q.namespace == "" {
		if ns, ok := sel.fields.RequiresExactMatch("metadata.namespace"); ok && ns != "" {
			q.namespace = ns
		}
	}
	return q
}
