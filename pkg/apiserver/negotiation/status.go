package negotiation

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Pretty says whether JSON is indented: kube-apiserver indents every JSON
// answer, objects and errors alike, for curl's User-Agent and for
// ?pretty=true.
func Pretty(r *http.Request) bool {
	return strings.HasPrefix(r.UserAgent(), "curl/") || r.URL.Query().Get("pretty") == "true"
}

// FinishJSON indents JSON when pretty and adds the trailing newline that
// kube-apiserver's JSON encoder writes.
func FinishJSON(b []byte, pretty bool) []byte {
	if pretty {
		var buf bytes.Buffer
		if json.Indent(&buf, b, "", "  ") == nil {
			b = buf.Bytes()
		}
	}
	return append(b, '\n')
}

// WriteStatus answers st as a meta/v1 Status in JSON, which every client
// accepts whatever it asked for, with the Status's code (500 when it has
// none) as the HTTP status.
func WriteStatus(w http.ResponseWriter, st metav1.Status, pretty bool) {
	st.Kind, st.APIVersion = "Status", "v1"
	if st.Code == 0 {
		st.Code = http.StatusInternalServerError
	}
	b, _ := json.Marshal(st)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(int(st.Code))
	_, _ = w.Write(FinishJSON(b, pretty))
}

// WriteError answers err as a Status: a Status error as its own, anything
// else as a 500 InternalError; indented as Pretty says for r.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	var api apierrors.APIStatus
	if !errors.As(err, &api) {
		api = apierrors.NewInternalError(err)
	}
	WriteStatus(w, api.Status(), Pretty(r))
}
