package apiserver

// Actions: POST to a subresource that asks the server to do something
// (pods/eviction). The registry's Action does the work through objects,
// which runs each step through the same handler code a client's request
// would; this file only decodes the body and answers.

import (
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// createAction answers POST to an action subresource. A *metav1.Status
// answer with a Code is sent with that code; any other with 201.
func (s *Server) createAction(w http.ResponseWriter, r *http.Request, q request) {
	out, dryRun, err := negotiateWrite(r, q)
	if err != nil {
		writeError(w, err)
		return
	}
	dec, err := readObject(w, r, q.sub.Kind, q.sub.Action.New, nil)
	if err != nil {
		writeError(w, err)
		return
	}
	obj, err := q.sub.Action.Do(r.Context(), objects{s}, registry.ActionRequest{
		Namespace: q.namespace, Name: q.name, Body: dec.obj, DryRun: dryRun,
	})
	code := http.StatusCreated
	if st, ok := obj.(*metav1.Status); ok {
		st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
		if st.Code != 0 {
			code = int(st.Code)
		}
	}
	out.view = viewObject
	s.answerWrite(w, q, out, code, obj, dec.warnings, err)
}
