// Package pass gives every controller one call that ends a reconcile pass:
// Log writes the controller's "reconciled ..." line and records the same
// pass in the server's journal, so that the log and the journal never
// disagree.
//
// The journal reaches the controllers through the context: controllers.Run
// puts it there (WithJournal), each driver names its controller once
// (ForController), and Reconcile's ctx carries both. A context without a
// journal records nothing, so unit tests that build a controller alone are
// unchanged. The context is the carrier, rather than each controller's
// Config, because a pass is scoped to one Reconcile call, as a trace span
// is: the driver Begins a pass before Reconcile and Ends it after, and
// WrapTransport notes each write made under the pass's context.
package pass

import (
	"context"
	"log/slog"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/pkg/journal"
)

type recorderKey struct{}

// recorder is what the context carries: the journal, and the controller
// whose passes are recorded (empty until ForController).
type recorder struct {
	j          *journal.Journal
	controller string
}

// WithJournal returns ctx carrying j for the controllers run under it; a
// nil j leaves ctx as it is (nothing is recorded).
func WithJournal(ctx context.Context, j *journal.Journal) context.Context {
	if j == nil {
		return ctx
	}
	return context.WithValue(ctx, recorderKey{}, &recorder{j: j})
}

// ForController returns ctx whose passes are recorded as controller's. It
// is called once per controller run, not per pass.
func ForController(ctx context.Context, controller string) context.Context {
	r, _ := ctx.Value(recorderKey{}).(*recorder)
	if r == nil {
		return ctx
	}
	return context.WithValue(ctx, recorderKey{}, &recorder{j: r.j, controller: controller})
}

// Log describes the pass over obj, an object of kind: it logs msg with
// args at Info, exactly as the controller's line always was, and records
// the pass (when the driver ends it, with its writes and error; at once
// outside a driver's pass).
// args are slog key/value pairs whose first pair names the object (as
// "deployment", key); "desired", "observed" and "action" become the
// journal's columns of those names (journal.Record.Fields). Nothing is
// formatted for the journal here: the values are kept as given.
func Log(ctx context.Context, log *slog.Logger, kind string, obj metav1.Object, msg string, args ...any) {
	log.Info(msg, args...)
	r, _ := ctx.Value(recorderKey{}).(*recorder)
	if r == nil || r.controller == "" || obj == nil {
		return
	}
	rec := journal.Record{
		Controller: r.controller,
		Object:     journal.Ref{Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName()},
		Generation: obj.GetGeneration(),
	}
	if len(args) >= 2 {
		rec.Fields = args[2:]
	}
	if o := metav1.GetControllerOfNoCopy(obj); o != nil {
		rec.Owner = journal.Ref{Kind: o.Kind, Namespace: obj.GetNamespace(), Name: o.Name}
	}
	hold(ctx, r, rec)
}
