package convert

import (
	"encoding/json"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fullEvent sets every field of an events.k8s.io/v1 Event.
func fullEvent() *eventsv1.Event {
	t := time.Date(2026, 12, 1, 8, 46, 30, 0, time.UTC)
	return &eventsv1.Event{
		ObjectMeta:               metav1.ObjectMeta{Name: "web-0.manual1", Namespace: "default", UID: "u1", Labels: map[string]string{"a": "b"}},
		EventTime:                metav1.NewMicroTime(t),
		Series:                   &eventsv1.EventSeries{Count: 3, LastObservedTime: metav1.NewMicroTime(t.Add(time.Minute))},
		ReportingController:      "example.com/my-controller",
		ReportingInstance:        "my-controller-1",
		Action:                   "Testing",
		Reason:                   "Tested",
		Regarding:                corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Name: "web-0", Namespace: "default", UID: "p1", FieldPath: "spec.containers{a}"},
		Related:                  &corev1.ObjectReference{Kind: "Node", Name: "n1"},
		Note:                     "A note",
		Type:                     "Normal",
		DeprecatedSource:         corev1.EventSource{Component: "kubelet", Host: "n1"},
		DeprecatedFirstTimestamp: metav1.NewTime(t),
		DeprecatedLastTimestamp:  metav1.NewTime(t.Add(time.Hour)),
		DeprecatedCount:          7,
	}
}

func TestEventToCoreMapsEveryField(t *testing.T) {
	e := fullEvent()
	c := EventToCore(e)
	checks := map[string][2]interface{}{
		"message":            {c.Message, e.Note},
		"involvedObject":     {c.InvolvedObject, e.Regarding},
		"related":            {*c.Related, *e.Related},
		"reportingComponent": {c.ReportingController, e.ReportingController},
		"reportingInstance":  {c.ReportingInstance, e.ReportingInstance},
		"source":             {c.Source, e.DeprecatedSource},
		"firstTimestamp":     {c.FirstTimestamp, e.DeprecatedFirstTimestamp},
		"lastTimestamp":      {c.LastTimestamp, e.DeprecatedLastTimestamp},
		"count":              {c.Count, e.DeprecatedCount},
		"series.count":       {c.Series.Count, e.Series.Count},
		"series.last":        {c.Series.LastObservedTime, e.Series.LastObservedTime},
		"eventTime":          {c.EventTime, e.EventTime},
		"action":             {c.Action, e.Action},
		"reason":             {c.Reason, e.Reason},
		"type":               {c.Type, e.Type},
		"metadata":           {c.ObjectMeta, e.ObjectMeta},
	}
	for name, pair := range checks {
		if !equality.Semantic.DeepEqual(pair[0], pair[1]) {
			t.Errorf("%s: core has %v, events.k8s.io had %v", name, pair[0], pair[1])
		}
	}
	if c.APIVersion != "v1" || c.Kind != "Event" {
		t.Errorf("core TypeMeta %v", c.TypeMeta)
	}
}

func TestEventRoundTrips(t *testing.T) {
	e := fullEvent()
	back := EventFromCore(EventToCore(e))
	back.TypeMeta = metav1.TypeMeta{}
	if !equality.Semantic.DeepEqual(e, back) {
		t.Errorf("events.k8s.io → core → events.k8s.io changed the event:\n%+v\n%+v", e, back)
	}
	c := EventToCore(e)
	c.TypeMeta = metav1.TypeMeta{}
	again := EventToCore(EventFromCore(c))
	again.TypeMeta = metav1.TypeMeta{}
	if !equality.Semantic.DeepEqual(c, again) {
		t.Errorf("core → events.k8s.io → core changed the event")
	}
	// The copies share nothing with their source.
	back.Related.Name = "changed"
	back.Labels["a"] = "changed"
	if e.Related.Name != "n1" || e.Labels["a"] != "b" {
		t.Error("conversion shares pointers with its input")
	}
}

// TestEventFromCoreAsReference checks the shape kube-apiserver answers for
// a core/v1 event written by a controller, read through events.k8s.io
// (reference section 11): deprecated fields set, eventTime null.
func TestEventFromCoreAsReference(t *testing.T) {
	first := metav1.NewTime(time.Date(2026, 12, 1, 8, 45, 40, 0, time.UTC))
	c := &corev1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: "pi.18ed14d7190e62e7", Namespace: "default"},
		InvolvedObject:      corev1.ObjectReference{APIVersion: "batch/v1", Kind: "Job", Name: "pi", Namespace: "default"},
		Reason:              "SuccessfulCreate",
		Message:             "Created pod: pi-9zspm",
		Source:              corev1.EventSource{Component: "job-controller"},
		FirstTimestamp:      first,
		LastTimestamp:       first,
		Count:               1,
		Type:                "Normal",
		ReportingController: "job-controller",
	}
	b, err := json.Marshal(EventFromCore(c))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"Event","apiVersion":"events.k8s.io/v1","metadata":{"name":"pi.18ed14d7190e62e7","namespace":"default"},"eventTime":null,"reportingController":"job-controller","reason":"SuccessfulCreate","regarding":{"kind":"Job","namespace":"default","name":"pi","apiVersion":"batch/v1"},"note":"Created pod: pi-9zspm","type":"Normal","deprecatedSource":{"component":"job-controller"},"deprecatedFirstTimestamp":"2026-12-01T08:45:40Z","deprecatedLastTimestamp":"2026-12-01T08:45:40Z","deprecatedCount":1}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}
