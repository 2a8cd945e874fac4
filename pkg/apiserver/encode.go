package apiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/miniapi/miniapi/pkg/apiserver/negotiation"
)

// writeObject answers obj (a typed object or list, or a Status/Scale)
// in the negotiated output, with HTTP status code.
func (s *Server) writeObject(w http.ResponseWriter, out output, code int, obj runtime.Object) {
	body, err := s.render(out, obj)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", out.contentType())
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// render turns obj into the negotiated view and encoding.
func (s *Server) render(out output, obj runtime.Object) ([]byte, error) {
	if err := checkPartialKind(out, obj); err != nil {
		return nil, err
	}
	return encode(out, s.transform(out, obj))
}

// checkPartialKind refuses PartialObjectMetadataList for a single object
// and PartialObjectMetadata for a list, with kube-apiserver's 406. (Watch
// events are single objects whichever was asked for.)
func checkPartialKind(out output, obj runtime.Object) error {
	if out.view != viewPartial {
		return nil
	}
	wantList := out.partialKind == "PartialObjectMetadataList"
	isList := meta.IsListType(obj)
	if wantList == isList {
		return nil
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	internal := "*" + groupOrCore(gvk.Group) + "." + gvk.Kind
	msg := fmt.Sprintf("you requested %s, but the requested object is not a list (%s)", out.partialKind, internal)
	if isList {
		msg = fmt.Sprintf("you requested %s, but the requested object is a list (%s)", out.partialKind, internal)
	}
	return statusError(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable, msg, nil)
}

// transform applies the negotiated view: a Table or PartialObjectMetadata
// in place of the object. Objects that have no such view (Status, Scale)
// and Tables the printers cannot build fall back to the object itself.
func (s *Server) transform(out output, obj runtime.Object) runtime.Object {
	switch out.view {
	case viewTable:
		if t, err := s.table(out, obj); err == nil {
			return t
		}
	case viewPartial:
		if p, ok := partial(obj, out.partialVersion); ok {
			return p
		}
	}
	return obj
}

// encode serializes obj in the chosen format. JSON ends with a newline, as
// kube-apiserver's does.
func encode(out output, obj runtime.Object) ([]byte, error) {
	switch out.format {
	case formatProtobuf:
		info, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), mediaProtobuf)
		var buf bytes.Buffer
		if err := info.Serializer.Encode(obj, &buf); err != nil {
			return nil, fmt.Errorf("encoding protobuf: %w", err)
		}
		return buf.Bytes(), nil
	case formatYAML:
		j, err := json.Marshal(obj)
		if err != nil {
			return nil, err
		}
		return yaml.JSONToYAML(j)
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return finishJSON(out, b), nil
}

// finishJSON indents JSON for curl and adds the trailing newline.
func finishJSON(out output, b []byte) []byte {
	return negotiation.FinishJSON(b, out.pretty)
}

// table builds the server-side Table of obj (an object or a list) with the
// rows' objects as includeObject asks.
func (s *Server) table(out output, obj runtime.Object) (*metav1.Table, error) {
	if out.table == nil {
		return nil, errors.New("no table for this resource")
	}
	t, err := out.table(obj, s.now())
	if err != nil {
		return nil, err
	}
	t.Kind, t.APIVersion = "Table", "meta.k8s.io/v1"
	if meta.IsListType(obj) {
		if l, err := meta.ListAccessor(obj); err == nil {
			t.ResourceVersion, t.Continue, t.RemainingItemCount = l.GetResourceVersion(), l.GetContinue(), l.GetRemainingItemCount()
		}
	} else if m, err := meta.Accessor(obj); err == nil {
		t.ResourceVersion = m.GetResourceVersion()
	}
	for i := range t.Rows {
		t.Rows[i].Object = rowObject(t.Rows[i].Object, out.includeObject)
	}
	return t, nil
}

// rowObject is a Table row's object for includeObject.
func rowObject(ext runtime.RawExtension, includeObject string) runtime.RawExtension {
	item := ext.Object
	if item == nil {
		return ext
	}
	switch includeObject {
	case "None":
		return runtime.RawExtension{}
	case "Object":
		b, err := json.Marshal(item)
		if err != nil {
			return runtime.RawExtension{}
		}
		return runtime.RawExtension{Raw: b}
	}
	p, ok := partial(item, "v1")
	if !ok {
		return runtime.RawExtension{}
	}
	// kube-apiserver leaves managedFields out of a row's metadata: no
	// table shows them, and they would double the size of the answer.
	p.(*metav1.PartialObjectMetadata).ManagedFields = nil
	b, err := json.Marshal(p)
	if err != nil {
		return runtime.RawExtension{}
	}
	return runtime.RawExtension{Raw: b}
}

// partial is obj's PartialObjectMetadata (or PartialObjectMetadataList) in
// meta.k8s.io/version (v1, or v1beta1 whose types are v1's).
func partial(obj runtime.Object, version string) (runtime.Object, bool) {
	apiVersion := "meta.k8s.io/" + version
	if meta.IsListType(obj) {
		items, err := meta.ExtractList(obj)
		if err != nil {
			return nil, false
		}
		l, err := meta.ListAccessor(obj)
		if err != nil {
			return nil, false
		}
		list := &metav1.PartialObjectMetadataList{
			TypeMeta: metav1.TypeMeta{Kind: "PartialObjectMetadataList", APIVersion: apiVersion},
			ListMeta: metav1.ListMeta{ResourceVersion: l.GetResourceVersion(), Continue: l.GetContinue(), RemainingItemCount: l.GetRemainingItemCount()},
			Items:    make([]metav1.PartialObjectMetadata, 0, len(items)),
		}
		for _, item := range items {
			p, ok := partial(item, version)
			if !ok {
				return nil, false
			}
			pm := *p.(*metav1.PartialObjectMetadata)
			pm.TypeMeta = metav1.TypeMeta{}
			list.Items = append(list.Items, pm)
		}
		return list, true
	}
	om, ok := objectMetaOf(obj)
	if !ok {
		return nil, false
	}
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: apiVersion},
		ObjectMeta: *om,
	}, true
}

// formatRV renders a revision as a resourceVersion.
func formatRV(rev int64) string { return strconv.FormatInt(rev, 10) }

// objectMetaOf is obj's metadata as an ObjectMeta, for a typed object or
// a custom resource.
func objectMetaOf(obj runtime.Object) (*metav1.ObjectMeta, bool) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		om := &metav1.ObjectMeta{}
		raw, _ := u.Object["metadata"].(map[string]interface{})
		return om, runtime.DefaultUnstructuredConverter.FromUnstructured(raw, om) == nil
	}
	acc, ok := obj.(metav1.ObjectMetaAccessor)
	if !ok {
		return nil, false
	}
	om, ok := acc.GetObjectMeta().(*metav1.ObjectMeta)
	return om, ok
}
