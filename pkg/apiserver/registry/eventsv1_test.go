package registry

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// newStyleEvent is a valid events.k8s.io/v1 event.
func newStyleEvent() *eventsv1.Event {
	return &eventsv1.Event{
		ObjectMeta:          objMeta("web-0.manual1", "default"),
		EventTime:           metav1.NewMicroTime(time.Date(2026, 12, 1, 8, 46, 30, 0, time.UTC)),
		ReportingController: "example.com/my-controller",
		ReportingInstance:   "my-controller-1",
		Action:              "Testing",
		Reason:              "Tested",
		Type:                "Normal",
		Note:                "A note",
		Regarding:           corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Name: "web-0", Namespace: "default"},
	}
}

func TestEventsV1Validate(t *testing.T) {
	s := eventsV1Strategy{}
	wantErrors(t, s.Validate(newStyleEvent()))

	// Reference section 11: no eventTime, then an unknown type.
	e := &eventsv1.Event{ObjectMeta: objMeta("bad1", "default"), Reason: "X", Type: "Normal",
		Regarding: corev1.ObjectReference{Kind: "Pod", Name: "web-0", Namespace: "default"}}
	wantErrors(t, s.Validate(e), "eventTime: Required value")
	e = newStyleEvent()
	e.Type = "Weird"
	wantErrors(t, s.Validate(e), `type: Invalid value: "": has invalid value: Weird`)

	// Core's new-style rules, naming the reporting controller as this API
	// does, and the deprecated fields that must stay unset.
	e = newStyleEvent()
	e.ReportingInstance, e.Action = "", ""
	e.DeprecatedCount = 2
	e.DeprecatedSource = corev1.EventSource{Component: "kubelet"}
	e.DeprecatedFirstTimestamp = metav1.Now()
	e.Series = &eventsv1.EventSeries{Count: 1}
	wantErrors(t, s.Validate(e),
		"reportingInstance: Required value",
		"action: Required value",
		`series.count: Invalid value: "": should be at least 2`,
		"series.lastObservedTime: Required value",
		`firstTimestamp: Invalid value: "": needs to be unset`,
		`count: Invalid value: "": needs to be unset`,
		`source: Invalid value: "": needs to be unset`)

	e = newStyleEvent()
	e.ReportingController = ""
	wantErrorContaining(t, s.Validate(e), "reportingController: Required value")

	// The name is a DNS subdomain here (core/v1 only wants a path segment).
	e = newStyleEvent()
	e.Name = "Web_0"
	wantErrorContaining(t, s.Validate(e), `metadata.name: Invalid value: "Web_0"`)
	if errs := (eventStrategy{}).Validate(&corev1.Event{ObjectMeta: objMeta("Web_0", "default"),
		InvolvedObject: corev1.ObjectReference{Namespace: "default"}}); len(errs) != 0 {
		t.Errorf("core/v1 refuses the name: %v", errs)
	}
}

func TestEventsV1ValidateUpdate(t *testing.T) {
	s := eventsV1Strategy{}
	old := newStyleEvent()
	old.ObjectMeta = storedMeta("web-0.manual1", "default")
	same := old.DeepCopy()
	same.Labels = map[string]string{"a": "b"}
	wantErrors(t, s.ValidateUpdate(same, old))

	e := old.DeepCopy()
	e.Reason = "Changed"
	e.Note = "other"
	e.Series = &eventsv1.EventSeries{Count: 2, LastObservedTime: metav1.NowMicro()}
	wantErrors(t, s.ValidateUpdate(e, old),
		`reason: Invalid value: "Changed": field is immutable`,
		`message: Invalid value: "other": field is immutable`)
}

func TestEventsV1FieldSet(t *testing.T) {
	e := newStyleEvent()
	e.DeprecatedSource.Component = "kubelet"
	f := eventsV1Strategy{}.FieldSet(e)
	for k, want := range map[string]string{
		"metadata.name": "web-0.manual1", "metadata.namespace": "default", "regarding.kind": "Pod", "regarding.name": "web-0",
		"reason": "Tested", "reportingController": "example.com/my-controller", "source": "kubelet", "type": "Normal",
	} {
		if f[k] != want {
			t.Errorf("%s = %q, want %q", k, f[k], want)
		}
	}
	if _, ok := f["involvedObject.kind"]; ok {
		t.Error("events.k8s.io offers core's field labels")
	}
	e.DeprecatedSource.Component = ""
	if got := (eventsV1Strategy{}).FieldSet(e)["source"]; got != "example.com/my-controller" {
		t.Errorf("source without a deprecated source = %q", got)
	}
}

// The StoredAs conversions keep the object whole both ways.
func TestEventsV1StoredAs(t *testing.T) {
	sa := eventsV1().StoredAs
	e := newStyleEvent()
	stored, err := sa.ToStored(e)
	if err != nil {
		t.Fatal(err)
	}
	c := stored.(*corev1.Event)
	if c.Message != "A note" || c.InvolvedObject.Name != "web-0" || c.ReportingController != "example.com/my-controller" {
		t.Errorf("stored %+v", c)
	}
	back, err := sa.FromStored(c)
	if err != nil {
		t.Fatal(err)
	}
	if b := back.(*eventsv1.Event); b.Note != e.Note || b.Regarding != e.Regarding || b.EventTime != e.EventTime {
		t.Errorf("back %+v", b)
	}
	if _, err := sa.ToStored(c); err == nil {
		t.Error("ToStored took a core event")
	}
}
