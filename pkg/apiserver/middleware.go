package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/miniapi/miniapi/pkg/apiserver/negotiation"
)

// requestLabels names a request for the log and the metrics; the resource
// dispatcher fills it in.
type requestLabels struct {
	verb, resource string
}

type labelsKey struct{}

// describeRequest records the request's verb and resource.
func describeRequest(r *http.Request, verb, resource string) {
	if l, ok := r.Context().Value(labelsKey{}).(*requestLabels); ok {
		l.verb, l.resource = verb, resource
	}
}

// middleware wraps every request: kube-apiserver's common headers, panic
// recovery into a 500 Status, the request log and the request metrics.
func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		labels := &requestLabels{}
		r = r.WithContext(context.WithValue(r.Context(), labelsKey{}, labels))
		rec := &recorder{ResponseWriter: w, pretty: negotiation.Pretty(r)}
		rec.Header().Set("Audit-Id", string(uuid.NewUUID()))
		rec.Header().Set("Cache-Control", "no-cache, private")

		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error("panic serving request", "method", r.Method, "path", r.URL.Path,
					"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				if !rec.wroteHeader {
					writeError(rec, apierrors.NewInternalError(errors.New("the server had a problem handling the request")))
				}
			}
			code := rec.status()
			elapsed := time.Since(start)
			verb := labels.verb
			if verb == "" {
				verb = r.Method
			}
			s.metrics.observeRequest(verb, labels.resource, code, elapsed)
			s.log.Info("request", "verb", verb, "path", r.URL.RequestURI(), "code", code,
				"duration", elapsed.Round(time.Microsecond), "userAgent", r.UserAgent(),
				"contentType", rec.Header().Get("Content-Type"))
		}()
		next.ServeHTTP(rec, r)
	})
}

// recorder remembers the status code written, passes Flush through for
// watch streams, and carries whether the client wants indented JSON.
type recorder struct {
	http.ResponseWriter
	code        int
	wroteHeader bool
	// pretty says errors are indented (writeError has no request).
	pretty bool
}

func (w *recorder) WriteHeader(code int) {
	if !w.wroteHeader {
		w.code, w.wroteHeader = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recorder) Write(b []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Flush sends buffered bytes to the client.
func (w *recorder) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *recorder) status() string {
	if !w.wroteHeader {
		return "200"
	}
	return strconv.Itoa(w.code)
}
