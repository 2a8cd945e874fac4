package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/liggitt/tabwriter"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/rest"
)

// errExpired means the watch's resourceVersion is no longer kept by the
// server (410 Expired): list again and watch from the new list.
var errExpired = errors.New("watch expired")

// watcher is one `get --watch`: it prints the listed objects, then one
// row (or object) per event as it arrives, and keeps going across server
// restarts by re-watching from the last resourceVersion seen, or
// re-listing when that is too old.
type watcher struct {
	o      *getOptions
	f      *Factory
	ref    ResourceRef
	client rest.Interface
	tw     *tabwriter.Writer
	table  printers.ResourcePrinter // nil unless the output is a table
	// rv is the resourceVersion to watch from; "0" for a named object
	// means "from now, with a synthetic ADDED first", which is not printed.
	rv string
}

func (o *getOptions) watch(ctx context.Context, f *Factory, refs []ResourceRef) error {
	if distinctRefTypes(refs) > 1 {
		return fmt.Errorf("watch is only supported on individual resources and resource collections, but %d resource types were found", distinctRefTypes(refs))
	}
	if len(refs) != 1 {
		for _, r := range refs { // a missing object is reported first
			if _, err := o.fetch(ctx, f, r); err != nil {
				return err
			}
		}
		return fmt.Errorf("watch is only supported on individual resources and resource collections, but %d resources were found", len(refs))
	}
	c, err := f.RawClient()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	w := &watcher{o: o, f: f, ref: refs[0], client: c, tw: printers.GetNewTabWriter(o.streams.Out)}
	if o.human {
		w.table = printers.NewTablePrinter(o.printOptions(w.ref, o.ShowKind))
	}
	if err := w.list(ctx, !o.WatchOnly); err != nil {
		if ctx.Err() != nil {
			return &ExitError{Code: 1}
		}
		if o.IgnoreNotFound && apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	return w.loop(ctx)
}

func distinctRefTypes(refs []ResourceRef) int {
	seen := map[string]bool{}
	for _, r := range refs {
		seen[r.Mapping.Resource.String()] = true
	}
	return len(seen)
}

// list gets the current state, prints it if show, and sets the
// resourceVersion to watch from.
func (w *watcher) list(ctx context.Context, show bool) error {
	r, err := w.o.fetch(ctx, w.f, w.ref)
	if err != nil {
		return err
	}
	w.rv = r.rv
	if w.ref.Name != "" {
		w.rv = "0"
	}
	if w.table != nil {
		for _, t := range r.tables {
			if !show {
				t.Rows = nil
			}
			if err := w.table.PrintObj(asWatchEvent(eventName(w.o, "ADDED"), t), w.tw); err != nil {
				return err
			}
		}
		return w.tw.Flush()
	}
	if show {
		for _, obj := range r.objects {
			if err := w.o.printer.PrintObj(asWatchEvent(eventName(w.o, "ADDED"), asObject(obj)), w.tw); err != nil {
				return err
			}
		}
	}
	return w.tw.Flush()
}

// eventName is the event type to show, or "" without --output-watch-events.
func eventName(o *getOptions, t string) string {
	if o.OutputWatchEvents {
		return t
	}
	return ""
}

// loop watches until interrupted, reconnecting after errors.
func (w *watcher) loop(ctx context.Context) error {
	backoff := 100 * time.Millisecond
	for {
		progressed, err := w.watchOnce(ctx)
		if ctx.Err() != nil {
			_ = w.tw.Flush()
			return &ExitError{Code: 1} // kubectl exits 1, silently, on SIGINT
		}
		if progressed {
			backoff = 100 * time.Millisecond
		}
		switch {
		case errors.Is(err, errExpired):
			if err := w.list(ctx, true); err != nil && !retryable(err) {
				return err
			}
			continue
		case err != nil && !retryable(err):
			return err
		}
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		if backoff < 2*time.Second {
			backoff *= 2
		}
	}
}

// retryable reports whether a watch error is worth retrying: the server is
// unreachable or restarting, or asks the client to come back later.
func retryable(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return true
	}
	code := status.Status().Code
	return code >= 500 || code == http.StatusTooManyRequests
}

// watchOnce runs one watch request until the stream ends. progressed
// tells whether any event arrived.
func (w *watcher) watchOnce(ctx context.Context) (progressed bool, err error) {
	q := listQuery{LabelSelector: w.o.LabelSelector, FieldSelector: w.o.FieldSelector}
	path := ResourcePath(w.ref.Mapping, w.o.requestNamespace(), "")
	if w.ref.Name != "" {
		q = listQuery{FieldSelector: "metadata.name=" + w.ref.Name}
	}
	req := q.apply(w.client.Get().AbsPath(path).SetHeader("Accept", w.o.accept())).
		Param("resourceVersion", w.rv).Param("watch", "true")
	stream, err := req.Stream(ctx)
	if err != nil {
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
			return false, errExpired
		}
		return false, err
	}
	defer stream.Close()
	dec := json.NewDecoder(stream)
	for {
		var ev struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		if err := dec.Decode(&ev); err != nil {
			if errors.Is(err, io.EOF) {
				return progressed, nil
			}
			return progressed, err
		}
		progressed = true
		if err := w.handle(ev.Type, ev.Object); err != nil {
			return progressed, err
		}
	}
}

// handle prints one event and advances the resourceVersion.
func (w *watcher) handle(eventType string, raw []byte) error {
	switch eventType {
	case "ERROR":
		var st metav1.Status
		if err := utiljson.Unmarshal(raw, &st); err == nil && (st.Code == http.StatusGone || st.Reason == metav1.StatusReasonExpired) {
			return errExpired
		}
		return &apierrors.StatusError{ErrStatus: st}
	case "BOOKMARK":
		obj, err := decodeObject(raw)
		if err == nil && metaString(obj, "resourceVersion") != "" {
			w.rv = metaString(obj, "resourceVersion")
		}
		return nil
	}
	skip := w.ref.Name != "" && w.rv == "0" // the synthetic ADDED of a named watch
	if w.table != nil {
		t, err := decodeTable(raw)
		if err != nil {
			return err
		}
		if rv := tableResourceVersion(t); rv != "" {
			w.rv = rv
		}
		if skip {
			t.Rows = nil
		}
		if err := w.table.PrintObj(asWatchEvent(eventName(w.o, eventType), t), w.tw); err != nil {
			return err
		}
		return w.tw.Flush()
	}
	obj, err := decodeObjectFields(raw, true) // the printer omits them
	if err != nil {
		return err
	}
	if rv := metaString(obj, "resourceVersion"); rv != "" {
		w.rv = rv
	}
	if skip {
		return nil
	}
	if err := w.o.printer.PrintObj(asWatchEvent(eventName(w.o, eventType), asObject(obj)), w.tw); err != nil {
		return err
	}
	return w.tw.Flush()
}

// tableResourceVersion is the resourceVersion of the object in a watch
// event's one-row Table.
func tableResourceVersion(t *metav1.Table) string {
	rv := ""
	for _, row := range t.Rows {
		if obj, ok := rowObject(row); ok {
			if v := metaString(obj, "resourceVersion"); v != "" {
				rv = v
			}
		}
	}
	return rv
}
