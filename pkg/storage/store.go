// Package storage defines the key-value store the API server keeps its
// objects in. The interface maps one-to-one onto etcd v3: a key's ModRevision
// is etcd's mod_revision, a watch starts from a revision, and old history is
// compacted away.
package storage

import (
	"context"
	"errors"
	"fmt"
)

// Errors returned by every Store implementation. Callers test them with
// errors.Is; implementations may wrap them with context.
var (
	// ErrNotFound: the key does not exist.
	ErrNotFound = errors.New("storage: key not found")
	// ErrExists: Create found the key already present.
	ErrExists = errors.New("storage: key already exists")
	// ErrConflict: the key's revision is not the one the caller expected.
	ErrConflict = errors.New("storage: revision conflict")
	// ErrExpired: a watch asked to start from a revision older than the
	// kept history (the API answers 410 Expired).
	ErrExpired = errors.New("storage: revision compacted")
	// ErrWatcherTooSlow ends a watch whose reader fell too far behind.
	ErrWatcherTooSlow = errors.New("storage: watcher fell behind")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("storage: store closed")
	// ErrFutureRevision: a List asked for a revision the store has not
	// reached yet (etcd's ErrFutureRev).
	ErrFutureRevision = errors.New("storage: revision is in the future")
	// ErrUnavailable: the backend cannot serve now (etcd has no leader
	// or refuses connections); the API answers 503 and the client retries.
	ErrUnavailable = errors.New("storage: backend unavailable")
	// ErrTimeout: the backend did not answer within its request timeout
	// (etcd unreachable); the API answers 504.
	ErrTimeout = errors.New("storage: backend did not answer in time")
	// ErrNoSpace: the database reached its quota (miniapi's and etcd's
	// --quota-backend-bytes) or the disk is full. Creates and updates
	// fail with it until space is freed; reads and deletes go on. Its
	// text is etcd's, which kube-apiserver passes on in a 500.
	ErrNoSpace = errors.New("mvcc: database space exceeded")
)

// ExpiredError is how backends report ErrExpired: errors.Is(err,
// ErrExpired) holds, and errors.As gives the revisions for the 410 message.
type ExpiredError struct {
	// Requested is the revision the caller asked for.
	Requested int64
	// Oldest is the oldest revision still answered: a watch may start
	// from it (and gets every change after it), a list may be read at it.
	Oldest int64
}

func (e *ExpiredError) Error() string {
	return fmt.Sprintf("%v: revision %d, oldest watchable is %d", ErrExpired, e.Requested, e.Oldest)
}

// Is makes errors.Is(err, ErrExpired) true.
func (e *ExpiredError) Is(target error) bool { return target == ErrExpired }

// KV is one stored key with its value and revisions.
type KV struct {
	Key   string
	Value []byte
	// CreateRevision is the revision of the write that created the key.
	CreateRevision int64
	// ModRevision is the revision of the last write to the key; the API
	// server shows it as metadata.resourceVersion.
	ModRevision int64
}

// ListOptions narrows a List.
type ListOptions struct {
	// StartKey, when set, starts the list at this key (inclusive); used
	// for paging with continue tokens.
	StartKey string
	// Limit caps the number of keys returned; 0 means no limit.
	Limit int
	// Revision, when non-zero, asks for the list as of that revision.
	// Backends that keep only the latest state answer ErrExpired for any
	// revision other than the current one. The bbolt backend answers
	// revisions back to the start of its watch history, ErrExpired before
	// that, and ErrFutureRevision after the current one. ListResult.Revision
	// is then the requested revision.
	Revision int64
}

// ListResult is what List returns.
type ListResult struct {
	KVs []KV
	// Revision is the store revision the list was read at.
	Revision int64
	// More is true when Limit cut the list short.
	More bool
}

// EventType says what happened to a key.
type EventType int

const (
	// Put is a create or an update: PrevKV is nil for a create.
	Put EventType = iota
	// Delete removed the key; KV holds the value before the delete and
	// the delete's revision as ModRevision.
	Delete
	// Progress carries no change: every change under the watched prefix
	// up to KV.ModRevision has been delivered (etcd's progress notify).
	// The API server turns it into a watch BOOKMARK.
	Progress
)

// Event is one change to one key.
type Event struct {
	Type EventType
	KV   KV
	// PrevKV is the key before this change, when there was one.
	PrevKV *KV
}

// Store is a transactional key-value store with one global revision.
//
// Every successful write gets the next revision, and is durable before the
// call returns.
type Store interface {
	// Get returns the key's current value, or ErrNotFound.
	Get(ctx context.Context, key string) (KV, error)
	// List returns the keys under prefix in key order.
	List(ctx context.Context, prefix string, opts ListOptions) (ListResult, error)
	// Create stores a new key and returns its revision, or ErrExists.
	Create(ctx context.Context, key string, value []byte) (int64, error)
	// Update replaces the key's value if its ModRevision equals
	// expectedRevision, and returns the new revision. It answers
	// ErrNotFound or ErrConflict otherwise.
	Update(ctx context.Context, key string, value []byte, expectedRevision int64) (int64, error)
	// Delete removes the key if expectedRevision is 0 or equals its
	// ModRevision, and returns the value it had with the delete's
	// revision as ModRevision.
	Delete(ctx context.Context, key string, expectedRevision int64) (KV, error)
	// Watch streams every change under prefix after revision fromRevision
	// in revision order. fromRevision 0 means "from now". A revision older
	// than the kept history fails with ErrExpired.
	Watch(ctx context.Context, prefix string, fromRevision int64) (Watcher, error)
	// Revision is the store's current revision.
	Revision() int64
	// Close flushes and closes the store. It ends every open watch.
	Close() error
}

// Watcher is an open watch.
type Watcher interface {
	// Events delivers the changes in revision order. The channel is
	// closed when the watch ends; Err then says why.
	Events() <-chan Event
	// Err is nil when the watch was stopped by its context or Stop, and
	// ErrWatcherTooSlow, ErrClosed or another error otherwise.
	Err() error
	// Stop ends the watch and releases its resources.
	Stop()
}

// deletingKey marks a context as carrying a write that is part of a delete.
type deletingKey struct{}

// ForDelete marks ctx as the context of a write that is part of a delete,
// such as the update that sets a pod's deletionTimestamp: backends let it
// through a full quota (ErrNoSpace), as they let Delete through, since
// the delete it starts is what frees the space.
func ForDelete(ctx context.Context) context.Context {
	return context.WithValue(ctx, deletingKey{}, true)
}

// IsForDelete reports whether ForDelete marked ctx.
func IsForDelete(ctx context.Context) bool {
	v, _ := ctx.Value(deletingKey{}).(bool)
	return v
}
