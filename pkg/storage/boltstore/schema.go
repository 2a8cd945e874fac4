package boltstore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/miniapi/miniapi/pkg/storage"
)

// The database holds three buckets:
//
//	kv      key      -> record (see encodeRecord)
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

// A kv record is createRevision(8) modRevision(8) [value]. While the
// history keeps the event that wrote the key's current value, the record
// leaves the value out and sets inEvent in createRevision: the value is
// the new value of the event at modRevision, so it is stored once, not
// twice (as in etcd, where a key's current value is its latest revision).
// trimHistory writes the value back into the record before it deletes
// that event. Files written before this form only hold whole records.
const inEvent = uint64(1) << 63

// encodeRecord lays out a kv record holding its value.
func encodeRecord(createRev, modRev int64, value []byte) []byte {
	b := make([]byte, 0, 16+len(value))
	b = binary.BigEndian.AppendUint64(b, uint64(createRev))
	b = binary.BigEndian.AppendUint64(b, uint64(modRev))
	return append(b, value...)
}

// encodeRecordInEvent lays out a kv record whose value is the new value
// of the event at modRev.
func encodeRecordInEvent(createRev, modRev int64) []byte {
	b := make([]byte, 0, 16)
	b = binary.BigEndian.AppendUint64(b, uint64(createRev)|inEvent)
	return binary.BigEndian.AppendUint64(b, uint64(modRev))
}

// recordInEvent reports whether a kv record takes its value from the
// event at rev.
func recordInEvent(b []byte, rev int64) bool {
	return len(b) == 16 && binary.BigEndian.Uint64(b[0:8])&inEvent != 0 &&
		int64(binary.BigEndian.Uint64(b[8:16])) == rev
}

// decodeRecord turns a kv record into a KV, taking the value from values
// when the record leaves it out. The value is copied: bbolt's memory is
// only valid inside the transaction.
func decodeRecord(key string, b []byte, values valueAt) (storage.KV, error) {
	if len(b) < 16 {
		return storage.KV{}, fmt.Errorf("%w: key %q", errCorrupt, key)
	}
	createRev := binary.BigEndian.Uint64(b[0:8])
	kv := storage.KV{
		Key:            key,
		CreateRevision: int64(createRev &^ inEvent),
		ModRevision:    int64(binary.BigEndian.Uint64(b[8:16])),
	}
	if createRev&inEvent == 0 {
		kv.Value = append([]byte(nil), b[16:]...)
		return kv, nil
	}
	var err error
	kv.Value, err = values(kv.ModRevision)
	return kv, err
}

// An event on disk is
//
//	type(1) kv prevForm(1) [prev]
//
// where kv is uvarint(len key) key createRev(8) modRev(8) uvarint(len
// value) value, and the event's revision is its bucket key. The previous
// value is kept once, not once more in every event:
//
//	prevNone  no previous value (a create)
//	prevFull  prev is a whole kv
//	prevAt    prev is createRev(8) modRev(8), and its value is the new
//	          value of the event at modRev, which the history still holds
//	          (trimHistory writes prev in full into the one event that
//	          refers to an event it deletes)
//	prevSame  prev is createRev(8) modRev(8), and its value is kv's (a
//	          delete)
const (
	prevNone byte = iota
	prevFull
	prevAt
	prevSame
)

// encodeEvent lays out an events bucket value. prevKept says the event
// at ev.PrevKV.ModRevision is in the events bucket, so an update refers
// to its value instead of holding a copy.
func encodeEvent(ev storage.Event, prevKept bool) []byte {
	n := 2 + 32 + len(ev.KV.Key) + len(ev.KV.Value)
	form := prevForm(ev, prevKept)
	if form == prevFull {
		n += 32 + len(ev.PrevKV.Key) + len(ev.PrevKV.Value)
	}
	b := make([]byte, 0, n)
	b = append(b, byte(ev.Type))
	b = appendKV(b, ev.KV)
	b = append(b, form)
	switch form {
	case prevFull:
		return appendKV(b, *ev.PrevKV)
	case prevAt, prevSame:
		b = binary.BigEndian.AppendUint64(b, uint64(ev.PrevKV.CreateRevision))
		return binary.BigEndian.AppendUint64(b, uint64(ev.PrevKV.ModRevision))
	}
	return b
}

func prevForm(ev storage.Event, prevKept bool) byte {
	switch {
	case ev.PrevKV == nil:
		return prevNone
	case ev.Type == storage.Delete && ev.PrevKV.Key == ev.KV.Key && bytes.Equal(ev.PrevKV.Value, ev.KV.Value):
		return prevSame
	case prevKept && ev.PrevKV.Key == ev.KV.Key:
		return prevAt
	}
	return prevFull
}

func appendKV(b []byte, kv storage.KV) []byte {
	b = binary.AppendUvarint(b, uint64(len(kv.Key)))
	b = append(b, kv.Key...)
	b = binary.BigEndian.AppendUint64(b, uint64(kv.CreateRevision))
	b = binary.BigEndian.AppendUint64(b, uint64(kv.ModRevision))
	b = binary.AppendUvarint(b, uint64(len(kv.Value)))
	return append(b, kv.Value...)
}

// valueAt returns the new value of the event at a revision, for the
// events that refer to it as their previous value.
type valueAt func(rev int64) ([]byte, error)

// eventValues is valueAt over an events bucket.
func eventValues(evs *bolt.Bucket) valueAt {
	return func(rev int64) ([]byte, error) {
		b := evs.Get(revKey(rev))
		if len(b) < 1 {
			return nil, fmt.Errorf("%w: event %d is referred to but not kept", errCorrupt, rev)
		}
		kv, _, err := readKV(b[1:])
		return kv.Value, err
	}
}

// decodeEvent parses an events bucket value, copying every byte; prevAt
// values come from values.
func decodeEvent(b []byte, values valueAt) (storage.Event, error) {
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
		return storage.Event{}, fmt.Errorf("%w: event without prev form", errCorrupt)
	}
	form, rest := rest[0], rest[1:]
	switch form {
	case prevNone:
		return ev, nil
	case prevFull:
		prev, _, err := readKV(rest)
		if err != nil {
			return storage.Event{}, err
		}
		ev.PrevKV = &prev
		return ev, nil
	case prevAt, prevSame:
		if len(rest) < 16 {
			return storage.Event{}, fmt.Errorf("%w: short prev", errCorrupt)
		}
		prev := storage.KV{Key: kv.Key, Value: kv.Value,
			CreateRevision: int64(binary.BigEndian.Uint64(rest[0:8])),
			ModRevision:    int64(binary.BigEndian.Uint64(rest[8:16])),
		}
		if form == prevAt {
			if prev.Value, err = values(prev.ModRevision); err != nil {
				return storage.Event{}, err
			}
		}
		ev.PrevKV = &prev
		return ev, nil
	}
	return storage.Event{}, fmt.Errorf("%w: prev form %d", errCorrupt, form)
}

// prevRef is the revision whose value an encoded event refers to as its
// previous one, if it does (prevAt).
func prevRef(b []byte) (int64, bool) {
	if len(b) < 1 {
		return 0, false
	}
	_, rest, err := readKV(b[1:])
	if err != nil || len(rest) < 17 || rest[0] != prevAt {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(rest[9:17])), true
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
