package apiserver

import (
	"encoding/json"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/miniapi/miniapi/pkg/apiserver/negotiation"
	"github.com/miniapi/miniapi/pkg/storage"
)

// The maintenance endpoints, miniapi's own like journalPath: the space
// accounting behind --quota-backend-bytes, and an online compaction
// (minictl maintenance status / compact). They serve the bbolt store;
// etcd is maintained with etcdctl (defrag, alarm disarm).
const (
	maintenanceStatusPath  = "/miniapi/v1/maintenance/status"
	maintenanceCompactPath = "/miniapi/v1/maintenance/compact"
)

// maintenanceStatus is the answer of a GET of maintenanceStatusPath.
type maintenanceStatus struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	storage.SpaceStatus
}

// maintenanceCompaction is the answer of a POST of maintenanceCompactPath.
type maintenanceCompaction struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	storage.CompactResult
}

// maintainer is the store's maintenance side, or a 501 Status.
func (s *Server) maintainer() (storage.Maintainer, error) {
	m, ok := s.store.(storage.Maintainer)
	if !ok {
		return nil, statusError(http.StatusNotImplemented, "NotImplemented",
			"maintenance is for miniapi's own bbolt store; maintain etcd with etcdctl (defrag, alarm disarm)", nil)
	}
	return m, nil
}

// serveMaintenanceStatus answers GET maintenanceStatusPath.
func (s *Server) serveMaintenanceStatus(w http.ResponseWriter, r *http.Request) {
	describeRequest(r, "get", "maintenance")
	m, err := s.maintainer()
	if err != nil {
		writeError(w, err)
		return
	}
	writeMaintenance(w, r, maintenanceStatus{Kind: "SpaceStatus", APIVersion: "miniapi/v1", SpaceStatus: m.SpaceStatus()})
}

// serveMaintenanceCompact answers POST maintenanceCompactPath: query
// keepHistory=N also trims the history to the newest N events.
func (s *Server) serveMaintenanceCompact(w http.ResponseWriter, r *http.Request) {
	describeRequest(r, "create", "maintenance")
	m, err := s.maintainer()
	if err != nil {
		writeError(w, err)
		return
	}
	opts := storage.CompactOptions{KeepHistory: -1}
	if v := r.URL.Query().Get("keepHistory"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			writeError(w, apierrors.NewBadRequest("keepHistory must be a number of events, 0 or more, got "+strconv.Quote(v)))
			return
		}
		opts.KeepHistory = n
	}
	res, err := m.Compact(r.Context(), opts)
	if err != nil {
		writeError(w, err)
		return
	}
	writeMaintenance(w, r, maintenanceCompaction{Kind: "Compaction", APIVersion: "miniapi/v1", CompactResult: res})
}

func writeMaintenance(w http.ResponseWriter, r *http.Request, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", mediaJSON)
	_, _ = w.Write(finishJSON(output{pretty: negotiation.Pretty(r)}, b))
}
