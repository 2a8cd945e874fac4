package apiserver

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// maxBodyBytes is kube-apiserver's limit on request bodies (3 MiB).
const maxBodyBytes = 3 << 20

// readBody reads a request body, answering 413 past maxBodyBytes and 504
// when the body has not arrived by the request's deadline (limits.go sets
// the connection's read deadline to it).
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", maxBodyBytes))
	}
	if err != nil && (errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(r.Context().Err(), context.DeadlineExceeded)) {
		return nil, errRequestTimeout()
	}
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("reading the request body: %v", err))
	}
	return body, nil
}

// bodySerializer picks the serializer for the request's Content-Type; a
// body without one is JSON, as kube-apiserver reads it (kubectl scale
// --current-replicas sends none).
func bodySerializer(r *http.Request) (runtime.SerializerInfo, error) {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		ct = mediaJSON
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return runtime.SerializerInfo{}, errUnsupportedBody()
	}
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), mt)
	if !ok {
		return runtime.SerializerInfo{}, errUnsupportedBody()
	}
	return info, nil
}

// fieldValidation is the request's fieldValidation directive; kube-apiserver
// 1.37 defaults to Warn.
func fieldValidation(r *http.Request) (string, error) {
	v := r.URL.Query().Get("fieldValidation")
	switch v {
	case "":
		return "Warn", nil
	case "Strict", "Warn", "Ignore":
		return v, nil
	}
	return "", apierrors.NewBadRequest(fmt.Sprintf("fieldValidation parameter unsupported: %s", v))
}

// decoded is a request body turned into a typed object.
type decoded struct {
	obj      runtime.Object
	warnings []string
}

// readObject reads the request body and decodes it, in the request's
// content type, into a new object of gvk's kind, honouring fieldValidation.
func readObject(w http.ResponseWriter, r *http.Request, gvk schema.GroupVersionKind, newObj func() runtime.Object, sch *registry.Schema) (decoded, error) {
	body, err := readBody(w, r)
	if err != nil {
		return decoded{}, err
	}
	info, err := bodySerializer(r)
	if err != nil {
		return decoded{}, err
	}
	validation, err := fieldValidation(r)
	if err != nil {
		return decoded{}, err
	}
	return decodeWith(info, validation, body, gvk, newObj, sch)
}

// decodeWith decodes body with a chosen serializer and validation mode.
// With a schema (a custom resource), the fields it does not declare are
// the unknown fields, and its defaults are applied.
func decodeWith(info runtime.SerializerInfo, validation string, body []byte, gvk schema.GroupVersionKind, newObj func() runtime.Object, sch *registry.Schema) (decoded, error) {
	ser := info.Serializer
	if validation != "Ignore" && info.StrictSerializer != nil {
		ser = info.StrictSerializer
	}
	into := newObj()
	obj, got, err := ser.Decode(body, &gvk, into)
	var warnings []string
	if strict, ok := runtime.AsStrictDecodingError(err); ok && obj != nil {
		if validation == "Strict" {
			return decoded{}, apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v",
				got.Kind, got.Version, gvk.Kind, err))
		}
		if validation == "Warn" {
			for _, e := range strict.Errors() {
				warnings = append(warnings, e.Error())
			}
		}
		err = nil
	}
	if err != nil {
		if got != nil && got.Kind != "" {
			return decoded{}, apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v",
				got.Kind, got.Version, gvk.Kind, err))
		}
		return decoded{}, apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)",
			gvk.Kind, err, summarize(body, 30)))
	}
	if got.GroupVersion() != gvk.GroupVersion() {
		return decoded{}, apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)",
			got.GroupVersion().String(), gvk.GroupVersion().String()))
	}
	if got.Kind != gvk.Kind {
		return decoded{}, apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: converting (%s.%s) to (%s.%s): unknown conversion",
			got.Kind, got.Version, gvk.Kind, got.Version, got.Kind, groupOrCore(gvk.Group), gvk.Kind))
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	if u, ok := obj.(*unstructured.Unstructured); ok && sch != nil {
		unknown := unknownFields(sch.Prune(u))
		if validation == "Strict" && len(unknown) > 0 {
			return decoded{}, apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: strict decoding error: %s",
				gvk.Kind, gvk.Version, gvk.Kind, strings.Join(unknown, ", ")))
		}
		if validation == "Warn" {
			warnings = append(warnings, unknown...)
		}
		sch.Default(u)
	}
	return decoded{obj: obj, warnings: warnings}, nil
}

// unknownFields words pruned paths as kube's strict decoding errors do.
func unknownFields(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = fmt.Sprintf("unknown field %q", p)
	}
	return out
}

func groupOrCore(g string) string {
	if g == "" {
		return "core"
	}
	return strings.SplitN(g, ".", 2)[0]
}

// summarize shortens a body for an error message as kube-apiserver does.
func summarize(data []byte, max int) string {
	switch {
	case len(data) == 0:
		return "<empty>"
	case data[0] == '{':
		if len(data) > max {
			return string(data[:max]) + " ..."
		}
		return string(data)
	default:
		if len(data) > max {
			return hex.EncodeToString(data[:max]) + " ..."
		}
		return hex.EncodeToString(data)
	}
}

// addWarnings sends warnings as kube-apiserver's Warning headers.
func addWarnings(w http.ResponseWriter, warnings []string) {
	for _, msg := range warnings {
		w.Header().Add("Warning", fmt.Sprintf("299 - %q", msg))
	}
}
