package cli

import (
	"bytes"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/printers"
)

func TestEventInterval(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	ts := func(d time.Duration) metav1.Time { return metav1.NewTime(now.Add(-d)) }
	cases := []struct {
		e    corev1.Event
		want string
	}{
		{corev1.Event{FirstTimestamp: ts(90 * time.Second), LastTimestamp: ts(90 * time.Second), Count: 1}, "90s"},
		{corev1.Event{FirstTimestamp: ts(10 * time.Minute), LastTimestamp: ts(5 * time.Second), Count: 4}, "5s (x4 over 10m)"},
		{corev1.Event{EventTime: metav1.NewMicroTime(now.Add(-3 * time.Minute)), Series: &corev1.EventSeries{Count: 2, LastObservedTime: metav1.NewMicroTime(now.Add(-time.Second))}}, "1s (x2 over 3m)"},
		{corev1.Event{}, "<unknown>"},
	}
	for _, c := range cases {
		if got := eventInterval(c.e, now); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

func TestEventsTableOrderAndColumns(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) metav1.Time { return metav1.NewTime(now.Add(-d)) }
	events := []corev1.Event{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns"}, Type: "Normal", Reason: "Late", Message: " b \n", InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "p"}, FirstTimestamp: at(time.Second), LastTimestamp: at(time.Second), Count: 1},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns"}, Type: "Warning", Reason: "Early", Message: "a", InvolvedObject: corev1.ObjectReference{Kind: "Deployment", Name: "web"}, FirstTimestamp: at(time.Hour), LastTimestamp: at(time.Minute), Count: 3},
	}
	sortEventsByTime(events)
	var b bytes.Buffer
	tw := printers.GetNewTabWriter(&b)
	(&eventsTable{allNamespaces: true, now: func() time.Time { return now }}).print(tw, events)
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "NAMESPACE   LAST SEEN           TYPE      REASON   OBJECT           MESSAGE\n" +
		"ns          60s (x3 over 60m)   Warning   Early    Deployment/web   a\n" +
		"ns          1s                  Normal    Late     Pod/p            b\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
