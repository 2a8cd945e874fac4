// Package deleteopts deletes apps/v1 objects with DeleteOptions sent as
// meta.k8s.io/v1 JSON. client-go's typed apps clients send DeleteOptions
// tagged apiVersion apps/v1, which kube-apiserver accepts but miniapi's
// server (as of this writing) rejects with 400; the garbage collector and
// the namespace controller need preconditions and a propagation policy in
// that body. Remove this package once the server accepts DeleteOptions in
// any group's version, and go back to the typed clients.
package deleteopts

import (
	"context"
	"encoding/json"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// Delete runs typed, the typed client's delete; only if the server answers
// 400 BadRequest does it send the same delete of apps/v1 resource ns/name
// (name "": every object in ns) with opts as meta.k8s.io/v1 JSON through rc.
func Delete(ctx context.Context, typed func() error, rc rest.Interface, resource, ns, name string, opts metav1.DeleteOptions) error {
	err := typed()
	if !apierrors.IsBadRequest(err) {
		return err
	}
	opts.TypeMeta = metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "DeleteOptions"}
	body, err := json.Marshal(opts)
	if err != nil {
		return err
	}
	req := rc.Delete().Namespace(ns).Resource(resource)
	if name != "" {
		req = req.Name(name)
	}
	return req.Body(body).SetHeader("Content-Type", "application/json").Do(ctx).Error()
}
