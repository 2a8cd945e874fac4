package printers

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func eventCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	e := obj.(*corev1.Event)
	first := age(e.FirstTimestamp, now)
	if e.FirstTimestamp.IsZero() {
		first = microAge(e.EventTime, now)
	}
	last := age(e.LastTimestamp, now)
	if e.LastTimestamp.IsZero() {
		last = first
	}
	count := e.Count
	if e.Series != nil {
		last = microAge(e.Series.LastObservedTime, now)
		count = e.Series.Count
	} else if count == 0 {
		count = 1 // events of the events.k8s.io API carry no count
	}
	target := strings.ToLower(e.InvolvedObject.Kind)
	if e.InvolvedObject.Name != "" {
		target = fmt.Sprintf("%s/%s", target, e.InvolvedObject.Name)
	}
	return []interface{}{
		last, e.Type, e.Reason, target, e.InvolvedObject.FieldPath,
		eventSource(e), strings.TrimSpace(e.Message), first, int64(count), e.Name,
	}, nil
}

// eventSource is "component, host", falling back to the reporting
// controller and instance when the legacy source is empty.
func eventSource(e *corev1.Event) string {
	component := firstNonEmpty(e.Source.Component, e.ReportingController)
	instance := firstNonEmpty(e.Source.Host, e.ReportingInstance)
	if instance == "" {
		return component
	}
	return component + ", " + instance
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
