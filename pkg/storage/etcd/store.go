package etcd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/miniapi/miniapi/pkg/storage"
)

// Store is a storage.Store kept in etcd. Open it with Open.
type Store struct {
	opts   Options
	log    *slog.Logger
	client *clientv3.Client
	prefix string // etcd key of the store key ""

	rev atomic.Int64 // highest revision seen in any etcd response

	// ctx ends when Close begins: it stops the watches and the loops.
	ctx    context.Context
	cancel context.CancelFunc
	closed atomic.Bool
	loops  sync.WaitGroup // background goroutines, feeds and watcher pumps

	// feedsMu guards feeds and orders Watch against Close (see join).
	feedsMu sync.Mutex
	feeds   map[string]*feed // shared feeds by feedKey

	closeOnce sync.Once
	closeErr  error
}

var _ storage.Store = (*Store)(nil)

// Open connects to etcd and reads the current revision. It fails when
// etcd does not answer within DialTimeout.
func Open(ctx context.Context, opts Options) (*Store, error) {
	opts.fill()
	if len(opts.Endpoints) == 0 {
		return nil, errors.New("etcd: no endpoints")
	}
	client, err := clientv3.New(clientv3.Config{
		Endpoints:   opts.Endpoints,
		DialTimeout: opts.DialTimeout,
		TLS:         opts.TLS,
		Logger:      zap.NewNop(),
		// Keepalives notice a dead connection while a watch is idle.
		DialKeepAliveTime:    30 * time.Second,
		DialKeepAliveTimeout: 10 * time.Second,
	})
	if err != nil {
		return nil, fmt.Errorf("etcd client: %w", err)
	}
	s := &Store{opts: opts, log: opts.Logger, client: client, prefix: opts.Prefix,
		feeds: map[string]*feed{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	first, cancel := context.WithTimeout(ctx, opts.DialTimeout)
	defer cancel()
	if err := s.refreshRevision(first); err != nil {
		s.cancel()
		_ = client.Close()
		return nil, fmt.Errorf("reaching etcd at %v: %w", opts.Endpoints, err)
	}
	s.start(s.pollRevision, opts.RevisionPollInterval)
	s.start(s.requestProgress, opts.ProgressInterval)
	s.start(s.compactLoop, opts.CompactionInterval)
	return s, nil
}

// start runs loop in a goroutine owned by the store, unless interval is
// not positive (the loop is disabled).
func (s *Store) start(loop func(time.Duration), interval time.Duration) {
	if interval <= 0 {
		return
	}
	s.loops.Go(func() { loop(interval) })
}

// key is the etcd key of a store key.
func (s *Store) key(k string) string { return s.prefix + k }

// observe records a revision etcd reported; Revision never goes back.
func (s *Store) observe(rev int64) {
	for {
		cur := s.rev.Load()
		if rev <= cur || s.rev.CompareAndSwap(cur, rev) {
			return
		}
	}
}

// Revision is the highest revision this store has seen in an etcd
// response: its own writes and reads, its watches, progress
// notifications, and a count-only read every RevisionPollInterval. Writes
// by other processes show up within that interval (or sooner, through
// any watch). It costs nothing to call.
func (s *Store) Revision() int64 { return s.rev.Load() }

// op bounds one call to etcd by RequestTimeout and fails fast once the
// store is closed.
func (s *Store) op(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if s.closed.Load() {
		return nil, nil, storage.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	c, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
	return c, cancel, nil
}

// refreshRevision reads the current revision with a count-only read of a
// key nobody writes: one small round trip.
func (s *Store) refreshRevision(ctx context.Context) error {
	resp, err := s.client.Get(ctx, s.prefix+"\x00revision", clientv3.WithCountOnly())
	if err != nil {
		return mapError(ctx, "get revision", err)
	}
	s.observe(resp.Header.Revision)
	return nil
}

// pollRevision keeps Revision current when this store is idle.
func (s *Store) pollRevision(interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		c, cancel := context.WithTimeout(s.ctx, s.opts.RequestTimeout)
		if err := s.refreshRevision(c); err != nil && s.ctx.Err() == nil {
			s.log.Debug("etcd revision poll", "err", err)
		}
		cancel()
	}
}

// Close ends every watch, stops the background loops and closes the
// client. A second Close does nothing.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.feedsMu.Lock()
		s.closed.Store(true)
		s.feedsMu.Unlock()
		s.cancel()
		s.loops.Wait()
		s.closeErr = s.client.Close()
		if errors.Is(s.closeErr, context.Canceled) {
			s.closeErr = nil
		}
	})
	return s.closeErr
}
