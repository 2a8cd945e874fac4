package etcd

import (
	"context"
	"errors"
	"strings"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/miniapi/miniapi/pkg/storage"
)

// Get returns the key's current value.
func (s *Store) Get(ctx context.Context, key string) (storage.KV, error) {
	c, cancel, err := s.op(ctx)
	if err != nil {
		return storage.KV{}, err
	}
	defer cancel()
	resp, err := s.client.Get(c, s.key(key))
	if err != nil {
		return storage.KV{}, mapError(ctx, "get", err)
	}
	s.observe(resp.Header.Revision)
	if len(resp.Kvs) == 0 {
		return storage.KV{}, storage.ErrNotFound
	}
	return s.kv(resp.Kvs[0]), nil
}

// List reads the keys under prefix in one etcd range request: at
// opts.Revision when set (etcd answers from its MVCC history, or
// ErrCompacted/ErrFutureRev), from opts.StartKey, at most opts.Limit keys.
func (s *Store) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	c, cancel, err := s.op(ctx)
	if err != nil {
		return storage.ListResult{}, err
	}
	defer cancel()
	from := s.key(prefix)
	if opts.StartKey > prefix {
		from = s.key(opts.StartKey)
	}
	ops := []clientv3.OpOption{clientv3.WithRange(clientv3.GetPrefixRangeEnd(s.key(prefix)))}
	if opts.Limit > 0 {
		ops = append(ops, clientv3.WithLimit(int64(opts.Limit)))
	}
	if opts.Revision > 0 {
		ops = append(ops, clientv3.WithRev(opts.Revision))
	}
	resp, err := s.client.Get(c, from, ops...)
	if err != nil {
		err = mapError(ctx, "list", err)
		if errors.Is(err, storage.ErrExpired) {
			return storage.ListResult{}, s.expired(ctx, opts.Revision)
		}
		return storage.ListResult{}, err
	}
	s.observe(resp.Header.Revision)
	res := storage.ListResult{Revision: resp.Header.Revision, More: resp.More, KVs: make([]storage.KV, 0, len(resp.Kvs))}
	if opts.Revision > 0 {
		res.Revision = opts.Revision
	}
	for _, kv := range resp.Kvs {
		res.KVs = append(res.KVs, s.kv(kv))
	}
	return res, nil
}

// kv converts an etcd key-value, taking the prefix off the key.
func (s *Store) kv(kv *mvccpb.KeyValue) storage.KV {
	return storage.KV{
		Key:            strings.TrimPrefix(string(kv.Key), s.prefix),
		Value:          kv.Value,
		CreateRevision: kv.CreateRevision,
		ModRevision:    kv.ModRevision,
	}
}
