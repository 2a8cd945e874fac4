package apiserver

import (
	"context"

	"github.com/miniapi/miniapi/pkg/storage"
)

// A watch's initial state (its ADDED events) is read from the store a page
// at a time, every page at the revision of the first, and the next page is
// read only once the previous one was handed to the connection. A watcher
// whose client stops reading therefore holds one page, not the collection.
const (
	// initialPageBytes is about how many bytes of stored objects a page
	// holds: the page after the first is sized from the first's objects.
	initialPageBytes = 64 << 10
	// initialFirstPage is the first page's length, before sizes are known;
	// initialMaxPage caps a page of small objects.
	initialFirstPage = 16
	initialMaxPage   = 500
)

// initialState is the part of a watch's initial state not yet sent.
type initialState struct {
	store  storage.Store
	prefix string
	// rev is the revision every page is read at; the watch goes on from it.
	rev  int64
	page []storage.KV
	more bool
}

// readInitial reads the first page of the collection under prefix.
func (s *Server) readInitial(ctx context.Context, prefix string) (*initialState, error) {
	res, err := s.store.List(ctx, prefix, storage.ListOptions{Limit: initialFirstPage})
	if err != nil {
		return nil, err
	}
	return &initialState{store: s.store, prefix: prefix, rev: res.Revision, page: res.KVs, more: res.More}, nil
}

// send sends the objects that match ww's selectors as ADDED events.
func (is *initialState) send(ctx context.Context, ww *watchWriter) error {
	defer func() { ww.held = 0 }()
	for {
		ww.held = valueBytes(is.page)
		ww.notePending()
		for _, kv := range is.page {
			if err := ww.filtered("ADDED", kv); err != nil {
				return err
			}
		}
		if !is.more {
			is.page = nil // the last page may go while the watch goes on
			return nil
		}
		opts := storage.ListOptions{
			StartKey: is.page[len(is.page)-1].Key + "\x00",
			Limit:    pageLength(is.page),
			Revision: is.rev,
		}
		is.page, ww.held = nil, 0 // the sent page may go before the next is read
		res, err := is.store.List(ctx, is.prefix, opts)
		if err != nil {
			return &watchStoreError{err: err, initialPage: true}
		}
		is.page, is.more = res.KVs, res.More
	}
}

// pageLength is how many objects like those of page fit in
// initialPageBytes.
func pageLength(page []storage.KV) int {
	avg := valueBytes(page)/max(len(page), 1) + 1
	return min(max(initialPageBytes/avg, 1), initialMaxPage)
}

func valueBytes(kvs []storage.KV) int {
	n := 0
	for _, kv := range kvs {
		n += len(kv.Key) + len(kv.Value)
	}
	return n
}
