package etcd

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/miniapi/miniapi/pkg/storage"
)

// exists is the transaction guard "the key is there": a missing key has
// create_revision 0.
func exists(key string) clientv3.Cmp {
	return clientv3.Compare(clientv3.CreateRevision(key), ">", 0)
}

// Create puts the key if its create_revision is 0 (it does not exist).
func (s *Store) Create(ctx context.Context, key string, value []byte) (int64, error) {
	c, cancel, err := s.op(ctx)
	if err != nil {
		return 0, err
	}
	defer cancel()
	k := s.key(key)
	resp, err := s.client.Txn(c).
		If(clientv3.Compare(clientv3.CreateRevision(k), "=", 0)).
		Then(clientv3.OpPut(k, string(value))).
		Commit()
	if err != nil {
		return 0, mapError(ctx, "create", err)
	}
	s.observe(resp.Header.Revision)
	if !resp.Succeeded {
		return 0, storage.ErrExists
	}
	return resp.Header.Revision, nil
}

// Update puts the key if it exists with mod_revision expectedRevision;
// otherwise the same transaction reads the key to tell ErrNotFound from
// ErrConflict.
func (s *Store) Update(ctx context.Context, key string, value []byte, expectedRevision int64) (int64, error) {
	c, cancel, err := s.op(ctx)
	if err != nil {
		return 0, err
	}
	defer cancel()
	k := s.key(key)
	resp, err := s.client.Txn(c).
		If(exists(k), clientv3.Compare(clientv3.ModRevision(k), "=", expectedRevision)).
		Then(clientv3.OpPut(k, string(value))).
		Else(clientv3.OpGet(k, clientv3.WithCountOnly())).
		Commit()
	if err != nil {
		return 0, mapError(ctx, "update", err)
	}
	s.observe(resp.Header.Revision)
	if !resp.Succeeded {
		return 0, missingOrConflict(resp)
	}
	return resp.Header.Revision, nil
}

// Delete removes the key, if expectedRevision is 0 or its mod_revision,
// and returns its last value with the delete's revision.
func (s *Store) Delete(ctx context.Context, key string, expectedRevision int64) (storage.KV, error) {
	c, cancel, err := s.op(ctx)
	if err != nil {
		return storage.KV{}, err
	}
	defer cancel()
	k := s.key(key)
	guard := []clientv3.Cmp{exists(k)}
	if expectedRevision != 0 {
		guard = append(guard, clientv3.Compare(clientv3.ModRevision(k), "=", expectedRevision))
	}
	resp, err := s.client.Txn(c).
		If(guard...).
		Then(clientv3.OpDelete(k, clientv3.WithPrevKV())).
		Else(clientv3.OpGet(k, clientv3.WithCountOnly())).
		Commit()
	if err != nil {
		return storage.KV{}, mapError(ctx, "delete", err)
	}
	s.observe(resp.Header.Revision)
	if !resp.Succeeded {
		return storage.KV{}, missingOrConflict(resp)
	}
	prev := resp.Responses[0].GetResponseDeleteRange().PrevKvs
	if len(prev) == 0 {
		// Cannot happen: the guard saw the key in the same transaction.
		return storage.KV{}, storage.ErrNotFound
	}
	kv := s.kv(prev[0])
	kv.ModRevision = resp.Header.Revision
	return kv, nil
}

// missingOrConflict reads the Else branch's count-only get.
func missingOrConflict(resp *clientv3.TxnResponse) error {
	if r := resp.Responses[0].GetResponseRange(); r == nil || r.Count == 0 {
		return storage.ErrNotFound
	}
	return storage.ErrConflict
}
