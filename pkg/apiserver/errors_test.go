package apiserver

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/miniapi/miniapi/pkg/storage"
)

// TestToStatusStorageOutage: an unreachable or leaderless backend is a
// retryable 503 or 504, not a 500.
func TestToStatusStorageOutage(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code int32
	}{
		{fmt.Errorf("etcd get: %w", storage.ErrUnavailable), http.StatusServiceUnavailable},
		{fmt.Errorf("etcd get: %w", storage.ErrTimeout), http.StatusGatewayTimeout},
		{storage.ErrClosed, http.StatusServiceUnavailable},
		{fmt.Errorf("something else"), http.StatusInternalServerError},
	} {
		if got := toStatus(tc.err).Code; got != tc.code {
			t.Errorf("toStatus(%v).Code = %d, want %d", tc.err, got, tc.code)
		}
	}
}
