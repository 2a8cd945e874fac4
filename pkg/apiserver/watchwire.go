package apiserver

import (
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/miniapi/miniapi/pkg/storage"
)

// wireCacheSlots is how many recent events' wire bytes a server keeps: a
// watcher further behind than this encodes the event itself.
const wireCacheSlots = 1024

// wireCache shares the encoded watch event of one store event among every
// watcher that shows it the same way (plain JSON or protobuf objects, no
// selector), so fan-out to N watchers encodes each event once, not N times.
//
// A revision names one change to one key, so (revision, key, type, kind,
// format) fixes the bytes; the cache is a ring indexed by revision whose
// slots hold immutable entries swapped atomically. Two watchers racing on
// an empty slot both encode and one entry wins, which is harmless.
type wireCache struct {
	slots [wireCacheSlots]atomic.Pointer[wireEntry]
}

// wireEntry is one event's bytes as written to the stream.
type wireEntry struct {
	rev   int64
	key   string
	size  int // len of the stored value, a cheap extra check
	typ   string
	gvk   schema.GroupVersionKind
	proto bool
	wire  []byte
}

// get returns the wire bytes of kv sent as typ, from the cache or from
// encode, whose result it keeps for the next watcher. encode's bytes must
// not be changed afterwards. A nil cache just encodes.
func (c *wireCache) get(typ string, gvk schema.GroupVersionKind, proto bool, kv storage.KV, encode func() ([]byte, error)) ([]byte, error) {
	if c == nil {
		return encode()
	}
	slot := &c.slots[uint64(kv.ModRevision)%wireCacheSlots]
	if e := slot.Load(); e != nil && e.rev == kv.ModRevision && e.size == len(kv.Value) &&
		e.proto == proto && e.typ == typ && e.gvk == gvk && e.key == kv.Key {
		return e.wire, nil
	}
	wire, err := encode()
	if err != nil {
		return nil, err
	}
	slot.Store(&wireEntry{rev: kv.ModRevision, key: kv.Key, size: len(kv.Value), typ: typ, gvk: gvk, proto: proto, wire: wire})
	return wire, nil
}
