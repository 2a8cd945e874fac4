package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/miniapi/miniapi/pkg/storage"
)

// initialEventsEndAnnotation marks the BOOKMARK that ends a streaming
// list's initial events.
const initialEventsEndAnnotation = "k8s.io/initial-events-end"

// watchWriter turns store events into one client's watch stream: JSON lines
// `{"type":"ADDED","object":{...}}` (objects, Tables or metadata), or
// length-delimited protobuf WatchEvents for clients that prefer protobuf.
type watchWriter struct {
	s   *Server
	w   http.ResponseWriter
	rc  *http.ResponseController
	out output
	q   request
	p   watchParams
	// tableSent: the first Table event carries the column definitions,
	// later ones send null, as kube-apiserver does.
	tableSent bool
	// r is the watch request; chunks its connection once taken over from
	// net/http (HTTP/1.1), nil while the stream goes through w.
	r      *http.Request
	chunks *chunkedConn

	// pending holds what was written since the last flush, so that a burst
	// of events leaves in one write and one flush.
	pending outQueue
	cache   *wireCache

	framer    runtime.Framer
	frames    io.Writer // frames into pending
	streamEnc runtime.Encoder
	objEnc    runtime.Encoder
	buf       bytes.Buffer

	// writeTimeout bounds each write and flush (Limits.WatchWriteTimeout);
	// timedOut records that one did not finish within it.
	writeTimeout time.Duration
	timedOut     bool
	// held is what the watch holds besides pending (the bytes of the page
	// of initial state being sent); peakHeld is the most held with
	// pending at once, the figure tests check a stuck watcher against.
	held, peakHeld int
}

// spillAt is how much pending output is written out (unflushed) at once,
// so that a long initial list does not sit in memory whole. Each spill
// costs net/http two socket writes (its 4 KiB buffer, then the rest), so
// larger pieces cost less: 32 KiB took 0.77–0.93× the server CPU of 8 KiB
// at 1,000 watchers, for the same heap per stuck watcher.
const spillAt = 32 << 10

func (s *Server) newWatchWriter(w http.ResponseWriter, r *http.Request, out output, q request, p watchParams) *watchWriter {
	ww := &watchWriter{s: s, w: w, r: r, rc: http.NewResponseController(w), out: out, q: q, p: p, cache: &s.wires,
		writeTimeout: s.limits.WatchWriteTimeout}
	ww.out.pretty = false
	switch out.format {
	case formatYAML:
		ww.out.format = formatJSON
	case formatProtobuf:
		info, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), mediaProtobuf)
		ww.framer = info.StreamSerializer.Framer
		ww.frames = ww.framer.NewFrameWriter(&ww.pending)
		ww.streamEnc = info.StreamSerializer.Serializer
		ww.objEnc = info.Serializer
	}
	return ww
}

// start sends the 200 and the headers, and takes an HTTP/1.1 connection
// over from net/http (chunkedConn) until end; from here on errors are
// events. clientGone is called if the client closes a connection taken
// over; a write that blocks fails once ctx ends.
func (ww *watchWriter) start(ctx context.Context, clientGone func()) {
	ct := mediaJSON
	if ww.out.format == formatProtobuf {
		ct = mediaProtobuf + ";stream=watch"
	}
	ww.w.Header().Set("Content-Type", ct)
	if chunkable(ww.r) {
		// The connection is not given back to net/http, so it closes
		// after the stream; the client should not count on reusing it.
		ww.w.Header().Set("Connection", "close")
	}
	ww.w.WriteHeader(http.StatusOK)
	if ww.flush() == nil {
		ww.chunks = takeChunked(ctx, ww.rc, ww.r, clientGone)
	}
}

// end ends the stream of a connection taken over with its last chunk.
func (ww *watchWriter) end() {
	if ww.chunks != nil {
		ww.chunks.end(ww.writeTimeout)
	}
}

// flush sends everything pending to the client now.
func (ww *watchWriter) flush() error {
	return ww.deadlined(func() error {
		if err := ww.writeOut(); err != nil || ww.chunks != nil {
			return err
		}
		return ww.rc.Flush()
	})
}

// writeOut sends the pending output in one write: one chunk on a
// connection taken over, else one write to the response.
func (ww *watchWriter) writeOut() error {
	if ww.pending.Len() == 0 {
		return nil
	}
	ww.notePending()
	defer ww.pending.reset()
	if ww.chunks != nil {
		return ww.chunks.write(ww.pending.take(), ww.pending.Len())
	}
	for _, b := range ww.pending.take() {
		if _, err := ww.w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// spill writes the pending output out (unflushed) once it is large.
func (ww *watchWriter) spill() error {
	if ww.pending.Len() < spillAt {
		return nil
	}
	return ww.deadlined(ww.writeOut)
}

// deadlined runs one write or flush under the write timeout.
func (ww *watchWriter) deadlined(write func() error) error {
	if ww.chunks == nil {
		timedOut, err := writeWithin(ww.rc.SetWriteDeadline, ww.writeTimeout, write)
		ww.timedOut = ww.timedOut || timedOut
		return err
	}
	timedOut, err := ww.chunks.within(ww.writeTimeout, write)
	ww.timedOut = ww.timedOut || timedOut && !ww.chunks.wasCut()
	return err
}

// writeWithin runs one write or flush of a stream that must end within
// timeout (none when 0), and reports whether it failed for taking
// longer. The deadline is cleared afterwards: it bounds a write the
// client does not take, not the quiet time between events (HTTP/2 resets
// a stream whose deadline passes even with no write pending).
func writeWithin(setDeadline func(time.Time) error, timeout time.Duration, write func() error) (timedOut bool, err error) {
	if timeout <= 0 {
		return false, write()
	}
	deadline := time.Now().Add(timeout)
	if err := setDeadline(deadline); err != nil {
		return false, write() // a writer without deadlines: unbounded as before
	}
	if err := write(); err != nil {
		return timedOutBy(err, deadline), err
	}
	return false, setDeadline(time.Time{})
}

// timedOutBy says whether a write's err is its deadline's doing. A write
// the client did not take in time can fail a later write instead, long
// before that one's own deadline (seen under load: 299.8 ms early with a
// 300 ms timeout): the error says so.
func timedOutBy(err error, deadline time.Time) bool {
	return errors.Is(err, os.ErrDeadlineExceeded) || !time.Now().Before(deadline)
}

// notePending records the bytes held now for peakHeld.
func (ww *watchWriter) notePending() {
	ww.peakHeld = max(ww.peakHeld, ww.held+ww.pending.Len())
}

// writeShared queues b, wire bytes shared among watchers, for the next
// flush.
func (ww *watchWriter) writeShared(b []byte) error {
	ww.pending.share(b)
	return ww.spill()
}

// event sends one store event. With selectors, an object that stops
// matching is sent as DELETED and one that starts matching as ADDED.
func (ww *watchWriter) event(ev storage.Event) error {
	switch ev.Type {
	case storage.Progress:
		if ww.p.bookmarks {
			return ww.bookmark(ev.KV.ModRevision, false)
		}
		return nil
	case storage.Delete:
		return ww.filtered("DELETED", ev.KV)
	}
	created := ev.PrevKV == nil && ev.KV.CreateRevision == ev.KV.ModRevision
	if ww.p.sel.empty() {
		if created {
			return ww.send("ADDED", ev.KV, nil)
		}
		return ww.send("MODIFIED", ev.KV, nil)
	}
	now, obj, err := ww.s.selects(ww.q.res, ww.p.sel, ev.KV)
	if err != nil {
		return err
	}
	before := !created && now
	if ev.PrevKV != nil {
		if before, _, err = ww.s.selects(ww.q.res, ww.p.sel, *ev.PrevKV); err != nil {
			return err
		}
	}
	switch {
	case now && before:
		return ww.send("MODIFIED", ev.KV, obj)
	case now:
		return ww.send("ADDED", ev.KV, obj)
	case before:
		return ww.send("DELETED", ev.KV, obj)
	}
	return nil
}

// filtered sends kv as typ if the selectors match it: an object of the
// initial state as ADDED, a deleted one as DELETED.
func (ww *watchWriter) filtered(typ string, kv storage.KV) error {
	ok, obj, err := ww.s.selects(ww.q.res, ww.p.sel, kv)
	if err != nil || !ok {
		return err
	}
	return ww.send(typ, kv, obj)
}

// bookmark sends a BOOKMARK: an empty object of the kind holding only the
// resourceVersion (and, ending the initial events, the annotation).
func (ww *watchWriter) bookmark(rev int64, initialEnd bool) error {
	obj := ww.q.res.New()
	obj.GetObjectKind().SetGroupVersionKind(ww.q.res.GroupVersionKind())
	m, _ := meta.Accessor(obj)
	m.SetResourceVersion(formatRV(rev))
	if initialEnd {
		m.SetAnnotations(map[string]string{initialEventsEndAnnotation: "true"})
	}
	if ww.out.view == viewPartial {
		// A metadata client decodes every event as PartialObjectMetadata.
		obj = ww.s.transform(ww.out, obj)
	}
	if ww.out.format == formatProtobuf {
		return ww.sendProto("BOOKMARK", obj)
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	return ww.writeJSON("BOOKMARK", b)
}

// sendError sends an ERROR event holding a Status; the stream then ends.
func (ww *watchWriter) sendError(err error) {
	st := toStatus(err)
	st.Kind, st.APIVersion = "Status", "v1"
	if ww.out.format == formatProtobuf {
		_ = ww.sendProto("ERROR", &st)
	} else {
		b, _ := json.Marshal(st)
		_ = ww.writeJSON("ERROR", b)
	}
	_ = ww.flush()
}

// send sends one object event; obj is kv decoded, or nil if not yet.
// Plain JSON objects and protobuf depend only on the event, so their bytes
// come from the server's wireCache, encoded once for every watcher. A
// converted resource's events are decoded, converted and encoded for each
// watcher instead: its stored bytes are another type's.
func (ww *watchWriter) send(typ string, kv storage.KV, obj runtime.Object) error {
	gvk := ww.q.res.GroupVersionKind()
	if ww.q.res.Converted() {
		return ww.sendDecoded(typ, kv, obj)
	}
	if ww.out.format == formatJSON && ww.out.view == viewObject {
		line, _ := ww.cache.get(typ, gvk, false, kv, func() ([]byte, error) {
			return appendJSONEvent(nil, typ, withTypeMeta(gvk, spliceRV(kv.Value, kv.ModRevision))), nil
		})
		return ww.writeShared(line)
	}
	if ww.out.format == formatProtobuf && ww.out.view == viewObject {
		frame, err := ww.cache.get(typ, gvk, true, kv, func() ([]byte, error) {
			return ww.protoFrame(typ, kv, obj)
		})
		if err != nil {
			return err
		}
		return ww.writeShared(frame)
	}
	return ww.sendDecoded(typ, kv, obj)
}

// sendDecoded sends one object event built from the decoded object: a
// Table row, metadata only, or a converted resource's object.
func (ww *watchWriter) sendDecoded(typ string, kv storage.KV, obj runtime.Object) error {
	if obj == nil {
		var err error
		if obj, err = ww.s.decoded(ww.q.res, kv); err != nil {
			return err
		}
	}
	shown := ww.s.transform(ww.out, obj)
	if ww.out.format == formatProtobuf {
		return ww.sendProto(typ, shown)
	}
	if t, ok := shown.(*metav1.Table); ok {
		if ww.tableSent {
			t.ColumnDefinitions = nil
		}
		ww.tableSent = true
	}
	b, err := json.Marshal(shown)
	if err != nil {
		return err
	}
	return ww.writeJSON(typ, b)
}

// writeJSON writes one JSON watch line.
func (ww *watchWriter) writeJSON(typ string, object []byte) error {
	ww.pending.Write(appendJSONEvent(ww.pending.AvailableBuffer(), typ, object))
	return ww.spill()
}

// appendJSONEvent appends the watch line `{"type":typ,"object":object}`.
func appendJSONEvent(dst []byte, typ string, object []byte) []byte {
	dst = append(dst, `{"type":"`...)
	dst = append(dst, typ...)
	dst = append(dst, `","object":`...)
	dst = append(dst, object...)
	return append(dst, "}\n"...)
}

// protoFrame returns kv's length-delimited protobuf WatchEvent frame in
// new bytes (they are shared through the wireCache).
func (ww *watchWriter) protoFrame(typ string, kv storage.KV, obj runtime.Object) ([]byte, error) {
	if obj == nil {
		var err error
		if obj, err = ww.s.decoded(ww.q.res, kv); err != nil {
			return nil, err
		}
	}
	var raw, out bytes.Buffer
	if err := ww.objEnc.Encode(obj, &raw); err != nil {
		return nil, err
	}
	ev := &metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: raw.Bytes()}}
	if err := ww.streamEnc.Encode(ev, ww.framer.NewFrameWriter(&out)); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// sendProto writes one length-delimited protobuf WatchEvent whose object
// is the protobuf-encoded obj, as kube-apiserver's protobuf watch does.
func (ww *watchWriter) sendProto(typ string, obj runtime.Object) error {
	ww.buf.Reset()
	if err := ww.objEnc.Encode(obj, &ww.buf); err != nil {
		return err
	}
	ev := &metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: ww.buf.Bytes()}}
	if err := ww.streamEnc.Encode(ev, ww.frames); err != nil {
		return err
	}
	return ww.spill()
}
