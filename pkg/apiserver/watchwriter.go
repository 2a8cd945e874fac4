package apiserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

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

	frames    io.Writer
	streamEnc runtime.Encoder
	objEnc    runtime.Encoder
	buf       bytes.Buffer
}

func (s *Server) newWatchWriter(w http.ResponseWriter, out output, q request, p watchParams) *watchWriter {
	ww := &watchWriter{s: s, w: w, rc: http.NewResponseController(w), out: out, q: q, p: p}
	ww.out.pretty = false
	switch out.format {
	case formatYAML:
		ww.out.format = formatJSON
	case formatProtobuf:
		info, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), mediaProtobuf)
		ww.frames = info.StreamSerializer.Framer.NewFrameWriter(w)
		ww.streamEnc = info.StreamSerializer.Serializer
		ww.objEnc = info.Serializer
	}
	return ww
}

// start sends the 200 and the headers; from here on errors are events.
func (ww *watchWriter) start() {
	ct := mediaJSON
	if ww.out.format == formatProtobuf {
		ct = mediaProtobuf + ";stream=watch"
	}
	ww.w.Header().Set("Content-Type", ct)
	ww.w.WriteHeader(http.StatusOK)
	ww.flush()
}

func (ww *watchWriter) flush() { _ = ww.rc.Flush() }

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
	obj, err := decodeStored(ww.q.res, ev.KV)
	if err != nil {
		return err
	}
	now := ww.p.sel.matches(ww.q.res, obj)
	before := !created && now
	if ev.PrevKV != nil {
		prev, err := decodeStored(ww.q.res, *ev.PrevKV)
		if err != nil {
			return err
		}
		before = ww.p.sel.matches(ww.q.res, prev)
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
	var obj runtime.Object
	if !ww.p.sel.empty() {
		var err error
		if obj, err = decodeStored(ww.q.res, kv); err != nil {
			return err
		}
		if !ww.p.sel.matches(ww.q.res, obj) {
			return nil
		}
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
	ww.flush()
}

// send sends one object event; obj is kv decoded, or nil if not yet.
func (ww *watchWriter) send(typ string, kv storage.KV, obj runtime.Object) error {
	if ww.out.format == formatJSON && ww.out.view == viewObject {
		return ww.writeJSON(typ, withTypeMeta(ww.q.res.GroupVersionKind(), spliceRV(kv.Value, kv.ModRevision)))
	}
	if obj == nil {
		var err error
		if obj, err = decodeStored(ww.q.res, kv); err != nil {
			return err
		}
	}
	if ww.out.format == formatProtobuf {
		return ww.sendProto(typ, obj)
	}
	shown := ww.s.transform(ww.out, obj)
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
	ww.buf.Reset()
	ww.buf.WriteString(`{"type":"`)
	ww.buf.WriteString(typ)
	ww.buf.WriteString(`","object":`)
	ww.buf.Write(object)
	ww.buf.WriteString("}\n")
	_, err := ww.w.Write(ww.buf.Bytes())
	return err
}

// sendProto writes one length-delimited protobuf WatchEvent whose object
// is the protobuf-encoded obj, as kube-apiserver's protobuf watch does.
func (ww *watchWriter) sendProto(typ string, obj runtime.Object) error {
	ww.buf.Reset()
	if err := ww.objEnc.Encode(obj, &ww.buf); err != nil {
		return err
	}
	ev := &metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: ww.buf.Bytes()}}
	return ww.streamEnc.Encode(ev, ww.frames)
}
