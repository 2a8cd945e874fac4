package apiserver

// Events expire, as kube-apiserver's do (--event-ttl, 1 h by default).
// kube stores each event under an etcd lease of that length, renewed by
// every write, so an event goes an hour after its last write. miniapi
// sweeps instead: every tick it deletes the events whose last write is
// older than the TTL. The last write is the newest of the event's own
// times and its managedFields' (each write by a manager stamps its entry).
// Deletes go to the store directly, as a lease's expiry does in etcd:
// watchers see them as DELETED, and no request is counted.

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/miniapi/miniapi/pkg/storage"
)

var eventsGVR = schema.GroupVersionResource{Version: "v1", Resource: "events"}

// expireEvents sweeps events older than ttl until the server shuts down.
func (s *Server) expireEvents(ttl time.Duration) {
	res, ok := s.reg.Lookup(eventsGVR)
	if !ok || ttl <= 0 || !s.beginLongRunning() {
		return
	}
	every := min(ttl/4, time.Minute)
	go func() {
		defer s.watches.Done()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-s.ctx.Done():
				return
			case <-tick.C:
			}
			if n, err := s.sweepEvents(s.ctx, collectionPrefix(res, ""), s.now().Add(-ttl)); err != nil && s.ctx.Err() == nil {
				s.log.Warn("expiring events", "err", err, "deleted", n)
			} else if n > 0 {
				s.log.Debug("expired events", "deleted", n, "ttl", ttl)
			}
		}
	}()
}

// sweepEvents deletes the events under prefix last written before cutoff,
// page by page, and says how many it deleted. An event written since it
// was read is left for the next sweep.
func (s *Server) sweepEvents(ctx context.Context, prefix string, cutoff time.Time) (int, error) {
	deleted := 0
	opts := storage.ListOptions{Limit: 500}
	for {
		page, err := s.store.List(ctx, prefix, opts)
		if err != nil {
			return deleted, err
		}
		for _, kv := range page.KVs {
			if last, ok := lastWrite(kv.Value); !ok || last.After(cutoff) {
				continue
			}
			_, err := s.store.Delete(ctx, kv.Key, kv.ModRevision)
			switch {
			case err == nil:
				deleted++
			case !errors.Is(err, storage.ErrConflict) && !errors.Is(err, storage.ErrNotFound):
				return deleted, err
			}
		}
		if !page.More || len(page.KVs) == 0 {
			return deleted, nil
		}
		opts.StartKey = page.KVs[len(page.KVs)-1].Key + "\x00"
	}
}

// eventTimes are the times a stored core/v1 event carries.
type eventTimes struct {
	Metadata struct {
		CreationTimestamp metav1.Time `json:"creationTimestamp"`
		ManagedFields     []struct {
			Time metav1.Time `json:"time"`
		} `json:"managedFields"`
	} `json:"metadata"`
	FirstTimestamp metav1.Time      `json:"firstTimestamp"`
	LastTimestamp  metav1.Time      `json:"lastTimestamp"`
	EventTime      metav1.MicroTime `json:"eventTime"`
	Series         *struct {
		LastObservedTime metav1.MicroTime `json:"lastObservedTime"`
	} `json:"series"`
}

// lastWrite is the newest time a stored event carries; false for bytes
// that are not an event, which are never expired (nothing is deleted that
// the server cannot read).
func lastWrite(value []byte) (time.Time, bool) {
	var e eventTimes
	if json.Unmarshal(value, &e) != nil {
		return time.Time{}, false
	}
	last := e.Metadata.CreationTimestamp.Time
	for _, t := range []time.Time{e.FirstTimestamp.Time, e.LastTimestamp.Time, e.EventTime.Time} {
		if t.After(last) {
			last = t
		}
	}
	if e.Series != nil && e.Series.LastObservedTime.After(last) {
		last = e.Series.LastObservedTime.Time
	}
	for _, m := range e.Metadata.ManagedFields {
		if m.Time.After(last) {
			last = m.Time.Time
		}
	}
	return last, true
}
