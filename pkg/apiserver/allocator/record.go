package allocator

import (
	"encoding/json"
	"fmt"
)

// encodingDeltas names the only encoding of record.Offsets so far; a
// reader refuses any other instead of misreading it.
const encodingDeltas = "uvarint-deltas"

// record is the stored value of a range's key: which range the offsets
// were counted in, and the allocated offsets themselves (base64 in JSON).
type record struct {
	// Range is the range as configured ("10.96.0.0/12", "30000-32767").
	Range string `json:"range"`
	// Count is the number of allocated values, checked when read.
	Count    int    `json:"count"`
	Encoding string `json:"encoding"`
	Offsets  []byte `json:"offsets"`
}

func encodeRecord(spec string, set *bitmap) ([]byte, error) {
	return json.Marshal(record{
		Range:    spec,
		Count:    set.count,
		Encoding: encodingDeltas,
		Offsets:  set.appendDeltas(make([]byte, 0, 3*set.count)),
	})
}

// decodeRecord reads a stored value. It returns the record's range even
// when the offsets are for another range (set is then nil), so the caller
// can say what changed.
func decodeRecord(value []byte, spec string, size int) (storedRange string, set *bitmap, err error) {
	var rec record
	if err := json.Unmarshal(value, &rec); err != nil {
		return "", nil, err
	}
	if rec.Range != spec {
		return rec.Range, nil, nil
	}
	if rec.Encoding != encodingDeltas {
		return rec.Range, nil, fmt.Errorf("unknown encoding %q", rec.Encoding)
	}
	set, err = decodeDeltas(rec.Offsets, size)
	if err != nil {
		return rec.Range, nil, err
	}
	if set.count != rec.Count {
		return rec.Range, nil, fmt.Errorf("holds %d values, says %d", set.count, rec.Count)
	}
	return rec.Range, set, nil
}
