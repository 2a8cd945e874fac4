package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/cli-runtime/pkg/printers"
)

// eventsTable prints `events` rows: LAST SEEN, TYPE, REASON, OBJECT
// (Kind/name, the kind as the event spells it) and MESSAGE, with NAMESPACE
// first for -A. The header is printed once, before the first rows.
type eventsTable struct {
	noHeaders     bool
	allNamespaces bool
	now           func() time.Time
	printedHeader bool
}

// PrintObj prints the rows of an EventList or of one Event.
func (p *eventsTable) PrintObj(obj runtime.Object, w io.Writer) error {
	switch v := obj.(type) {
	case *corev1.EventList:
		p.print(w, v.Items)
	case *corev1.Event:
		p.print(w, []corev1.Event{*v})
	}
	return nil
}

func (p *eventsTable) print(w io.Writer, events []corev1.Event) {
	if !p.noHeaders && !p.printedHeader {
		if p.allNamespaces {
			fmt.Fprint(w, "NAMESPACE\t")
		}
		fmt.Fprint(w, "LAST SEEN\tTYPE\tREASON\tOBJECT\tMESSAGE\n")
		p.printedHeader = true
	}
	now := p.now()
	for _, e := range events {
		if p.allNamespaces {
			fmt.Fprintf(w, "%s\t", e.Namespace)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s/%s\t%s\n", eventInterval(e, now),
			printers.EscapeTerminal(e.Type), printers.EscapeTerminal(e.Reason),
			printers.EscapeTerminal(e.InvolvedObject.Kind), printers.EscapeTerminal(e.InvolvedObject.Name),
			printers.EscapeTerminal(strings.TrimSpace(e.Message)))
	}
}

// eventInterval is the LAST SEEN cell: the age of the first occurrence, or
// for a repeated event "LAST (xCOUNT over FIRST)".
func eventInterval(e corev1.Event, now time.Time) string {
	first := ago(now, e.EventTime.Time)
	if e.EventTime.IsZero() {
		first = ago(now, e.FirstTimestamp.Time)
	}
	switch {
	case e.Series != nil:
		return fmt.Sprintf("%s (x%d over %s)", ago(now, e.Series.LastObservedTime.Time), e.Series.Count, first)
	case e.Count > 1:
		return fmt.Sprintf("%s (x%d over %s)", ago(now, e.LastTimestamp.Time), e.Count, first)
	}
	return first
}

func ago(now, t time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t))
}

// sortEventsByTime orders events by when they were last seen. It uses
// sort.Sort, not a stable sort, because kubectl does: events seen at the
// same moment then come out in the same order as kubectl prints them.
func sortEventsByTime(events []corev1.Event) {
	sort.Sort(eventsByTime(events))
}

type eventsByTime []corev1.Event

func (l eventsByTime) Len() int           { return len(l) }
func (l eventsByTime) Swap(i, j int)      { l[i], l[j] = l[j], l[i] }
func (l eventsByTime) Less(i, j int) bool { return lastSeen(l[i]).Before(lastSeen(l[j])) }

// lastSeen is the series' last observation, else the last timestamp, else
// the event time.
func lastSeen(e corev1.Event) time.Time {
	if e.Series != nil {
		return e.Series.LastObservedTime.Time
	}
	if !e.LastTimestamp.IsZero() {
		return e.LastTimestamp.Time
	}
	return e.EventTime.Time
}
