package apiserver

import (
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// metricsGroup is the resource metrics API (kubectl top), which needs
// running containers to measure.
const metricsGroup = "metrics.k8s.io"

// noMetrics answers every request for the metrics API with a clear 404.
func noMetrics(w http.ResponseWriter, _ *http.Request) {
	writeError(w, statusError(http.StatusNotFound, metav1.StatusReasonNotFound,
		"miniapi runs no containers: "+metricsGroup+" is not available", &metav1.StatusDetails{Group: metricsGroup}))
}
