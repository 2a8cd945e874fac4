package boltstore

import (
	"encoding/binary"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/miniapi/miniapi/pkg/storage"
)

// The database holds three buckets:
//
//	kv      key      -> record: createRevision(8) modRevision(8) value
//	events  revision -> event (see encodeEvent), the last HistorySize writes
//	meta    "revision" -> the store revision, written by every write transaction
//
// Revisions are big-endian uint64 so that bucket order is revision order.
var (
	bucketKV     = []byte("kv")
	bucketEvents = []byte("events")
	bucketMeta   = []byte("meta")
	metaRevision = []byte("revision")
)

// errCorrupt reports bytes on disk this package did not write.
var errCorrupt = errors.New("boltstore: corrupt record")

func revKey(rev int64) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), uint64(rev))
}

func decodeRev(b []byte) (int64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("%w: revision of %d bytes", errCorrupt, len(b))
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}

// readRevision reads the store revision inside tx; 0 on a new file.
func readRevision(tx *bolt.Tx) (int64, error) {
	b := tx.Bucket(bucketMeta).Get(metaRevision)
	if b == nil {
		return 0, nil
	}
	return decodeRev(b)
}

// encodeRecord lays out a kv bucket value.
func encodeRecord(createRev, modRev int64, value []byte) []byte {
	b := make([]byte, 0, 16+len(value))
	b = binary.BigEndian.AppendUint64(b, uint64(createRev))
	b = binary.BigEndian.AppendUint64(b, uint64(modRev))
	return append(b, value...)
}

// decodeRecord turns a kv bucket value into a KV. The value is copied:
// bbolt's memory is only valid inside the transaction.
func decodeRecord(key string, b []byte) (storage.KV, error) {
	if len(b) < 16 {
		return storage.KV{}, fmt.Errorf("%w: key %q", errCorrupt, key)
	}
	return storage.KV{
		Key:            key,
		CreateRevision: int64(binary.BigEndian.Uint64(b[0:8])),
		ModRevision:    int64(binary.BigEndian.Uint64(b[8:16])),
		Value:          append([]byte(nil), b[16:]...),
	}, nil
}

// An event on disk is
//
//	type(1) kv prevFlag(1) [prevKV]
//
// where each kv is uvarint(len key) key createRev(8) modRev(8)
// uvarint(len value) value. The event's revision is its bucket key.
func encodeEvent(ev storage.Event) []byte {
	n := 2 + 32 + len(ev.KV.Key) + len(ev.KV.Value)
	if ev.PrevKV != nil {
		n += 32 + len(ev.PrevKV.Key) + len(ev.PrevKV.Value)
	}
	b := make([]byte, 0, n)
	b = append(b, byte(ev.Type))
	b = appendKV(b, ev.KV)
	if ev.PrevKV == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	return appendKV(b, *ev.PrevKV)
}

func appendKV(b []byte, kv storage.KV) []byte {
	b = binary.AppendUvarint(b, uint64(len(kv.Key)))
	b = append(b, kv.Key...)
	b = binary.BigEndian.AppendUint64(b, uint64(kv.CreateRevision))
	b = binary.BigEndian.AppendUint64(b, uint64(kv.ModRevision))
	b = binary.AppendUvarint(b, uint64(len(kv.Value)))
	return append(b, kv.Value...)
}

// decodeEvent parses an events bucket value, copying every byte.
func decodeEvent(b []byte) (storage.Event, error) {
	if len(b) < 1 {
		return storage.Event{}, fmt.Errorf("%w: empty event", errCorrupt)
	}
	ev := storage.Event{Type: storage.EventType(b[0])}
	kv, rest, err := readKV(b[1:])
	if err != nil {
		return storage.Event{}, err
	}
	ev.KV = kv
	if len(rest) < 1 {
		return storage.Event{}, fmt.Errorf("%w: event without prev flag", errCorrupt)
	}
	if rest[0] == 1 {
		prev, _, err := readKV(rest[1:])
		if err != nil {
			return storage.Event{}, err
		}
		ev.PrevKV = &prev
	}
	return ev, nil
}

func readKV(b []byte) (storage.KV, []byte, error) {
	key, b, err := readBytes(b)
	if err != nil {
		return storage.KV{}, nil, err
	}
	if len(b) < 16 {
		return storage.KV{}, nil, fmt.Errorf("%w: short event", errCorrupt)
	}
	kv := storage.KV{
		Key:            string(key),
		CreateRevision: int64(binary.BigEndian.Uint64(b[0:8])),
		ModRevision:    int64(binary.BigEndian.Uint64(b[8:16])),
	}
	value, rest, err := readBytes(b[16:])
	if err != nil {
		return storage.KV{}, nil, err
	}
	kv.Value = append([]byte(nil), value...)
	return kv, rest, nil
}

func readBytes(b []byte) (data, rest []byte, err error) {
	n, w := binary.Uvarint(b)
	if w <= 0 || uint64(len(b)-w) < n {
		return nil, nil, fmt.Errorf("%w: bad length", errCorrupt)
	}
	return b[w : w+int(n)], b[w+int(n):], nil
}
