package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/miniapi/miniapi/pkg/apiserver/negotiation"
	"github.com/miniapi/miniapi/pkg/storage"
)

// toStatus turns any error into the Status the client gets: API errors as
// they are, storage errors as their Kubernetes counterparts (an unavailable
// backend 503, a backend timeout 504, a request past its deadline 504, a
// database out of space 500 with etcd's "database space exceeded"),
// anything else as 500 InternalError.
func toStatus(err error) metav1.Status {
	var api apierrors.APIStatus
	if errors.As(err, &api) {
		return api.Status()
	}
	switch {
	case errors.Is(err, storage.ErrClosed):
		return apierrors.NewServiceUnavailable("the server is shutting down").Status()
	case errors.Is(err, storage.ErrUnavailable):
		// etcd has no leader or refuses connections: retry later.
		return apierrors.NewServiceUnavailable("storage unavailable: " + err.Error()).Status()
	case errors.Is(err, storage.ErrNoSpace):
		// Past --quota-backend-bytes, or a full disk: kube-apiserver
		// passes etcd's NOSPACE error on as a 500 with etcd's text.
		return apierrors.NewInternalError(fmt.Errorf("etcdserver: %w", err)).Status()
	case errors.Is(err, storage.ErrTimeout):
		// etcd did not answer in time, as kube-apiserver's 504.
		return apierrors.NewTimeoutError("storage did not answer in time: "+err.Error(), 1).Status()
	case errors.Is(err, context.DeadlineExceeded):
		// The request's own deadline (--request-timeout) passed.
		return errRequestTimeout().Status()
	}
	return apierrors.NewInternalError(err).Status()
}

// writeError answers err as a meta/v1 Status in JSON, which every client
// accepts, with the Status's code as the HTTP status; indented when the
// middleware's recorder says the client (curl) wants it.
func writeError(w http.ResponseWriter, err error) {
	rec, _ := w.(*recorder)
	negotiation.WriteStatus(w, toStatus(err), rec != nil && rec.pretty)
}

// errNoPage is the answer to a resource path in a group only custom
// resources serve (or none does) naming no served resource: not a Status
// but Go's plain "404 page not found", because kube-apiserver passes such
// a path on to a handler that knows nothing (as after a CRD is deleted).
// client-go then reports "the server could not find the requested
// resource (get widgets.example.com)".
var errNoPage = errors.New("404 page not found")

// statusError builds a Status error that apimachinery has no constructor
// for (415, 406).
func statusError(code int32, reason metav1.StatusReason, message string, details *metav1.StatusDetails) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: code, Reason: reason, Message: message, Details: details,
	}}
}

// errUnsupportedBody is kube-apiserver's answer to a body in a format it
// cannot read.
func errUnsupportedBody() error {
	return statusError(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType,
		"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf", nil)
}

// errUnsupportedPatch is kube-apiserver's answer to a PATCH whose
// Content-Type is not a patch type it serves.
func errUnsupportedPatch() error {
	return statusError(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType,
		"415: Unsupported Media Type", &metav1.StatusDetails{})
}

// errUnsupportedCustomPatch is kube-apiserver's answer to a PATCH of a
// custom resource in any other type than these (strategic merge patch
// included).
func errUnsupportedCustomPatch() error {
	return statusError(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType,
		"the body of the request was in an unknown format - accepted media types include: "+
			jsonPatchType+", "+mergePatchType+", "+applyPatchType, nil)
}

// errConflict is the 409 of a stale resourceVersion.
func errConflict(gr schema.GroupResource, name string) error {
	return apierrors.NewConflict(gr, name,
		errors.New("the object has been modified; please apply your changes to the latest version and try again"))
}

// errTooOld is the 410 of a watch or list at a revision no longer kept.
func errTooOld(requested, oldest int64) error {
	return apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", requested, oldest))
}

// errPathNotFound is kube-apiserver's 404 for a path it does not serve.
func errPathNotFound() error {
	return statusError(http.StatusNotFound, metav1.StatusReasonNotFound,
		"the server could not find the requested resource", &metav1.StatusDetails{})
}

// storeError turns a storage error about q's object into its API error.
func (s *Server) storeError(q request, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, storage.ErrNotFound):
		return apierrors.NewNotFound(q.gr(), q.name)
	case errors.Is(err, storage.ErrExists):
		return apierrors.NewAlreadyExists(q.gr(), q.name)
	case errors.Is(err, storage.ErrConflict):
		return errConflict(q.gr(), q.name)
	case errors.Is(err, storage.ErrExpired):
		return errTooOld(requestedRevision(err), oldestRevision(err, s.store.Revision()))
	}
	return err
}

// oldestRevision is the oldest revision a storage.ErrExpired names, for
// the 410 message ("too old resource version: N (oldest)"); fallback when
// the error carries none (etcd did not say).
func oldestRevision(err error, fallback int64) int64 {
	var expired *storage.ExpiredError
	if errors.As(err, &expired) && expired.Oldest > 0 {
		return expired.Oldest
	}
	return fallback
}

// requestedRevision is the revision a storage.ErrExpired says was asked
// for, 0 if it does not say.
func requestedRevision(err error) int64 {
	var expired *storage.ExpiredError
	if errors.As(err, &expired) {
		return expired.Requested
	}
	return 0
}
