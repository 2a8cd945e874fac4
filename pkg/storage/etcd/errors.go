package etcd

import (
	"context"
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/miniapi/miniapi/pkg/storage"
)

// mapError turns a client error into the storage error the API layer
// knows. ctx is the caller's context: when it ended, its own error wins,
// so a cancelled request is not reported as an outage.
func mapError(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	switch {
	case errors.Is(err, rpctypes.ErrCompacted):
		return &storage.ExpiredError{}
	case errors.Is(err, rpctypes.ErrFutureRev):
		return storage.ErrFutureRevision
	case errors.Is(err, rpctypes.ErrNoSpace), errors.Is(err, rpctypes.ErrGRPCNoSpace):
		// etcd's NOSPACE alarm: the API answers as for bbolt's quota.
		return storage.ErrNoSpace
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("etcd %s: %w (%v)", op, storage.ErrTimeout, err)
	case errors.Is(err, rpctypes.ErrNoLeader), errors.Is(err, rpctypes.ErrLeaderChanged),
		errors.Is(err, rpctypes.ErrTimeout), errors.Is(err, rpctypes.ErrTimeoutDueToLeaderFail),
		errors.Is(err, rpctypes.ErrTimeoutDueToConnectionLost), errors.Is(err, rpctypes.ErrStopped):
		return fmt.Errorf("etcd %s: %w (%v)", op, storage.ErrUnavailable, err)
	}
	switch status.Code(err) {
	case codes.Unavailable:
		return fmt.Errorf("etcd %s: %w (%v)", op, storage.ErrUnavailable, err)
	case codes.DeadlineExceeded:
		return fmt.Errorf("etcd %s: %w (%v)", op, storage.ErrTimeout, err)
	}
	return fmt.Errorf("etcd %s: %w", op, err)
}
