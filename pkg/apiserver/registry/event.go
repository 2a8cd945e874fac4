package registry

// Events (core/v1): no status, no generation; the involved object's
// namespace must agree with the event's, and events with an eventTime
// (the new style) need reporting fields. Field selectors cover what
// `kubectl describe` and `kubectl events` filter on.

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// Length limits kube-apiserver puts on new-style events.
const (
	eventReportingInstanceLimit = 128
	eventActionLimit            = 128
	eventReasonLimit            = 128
	eventNoteLimit              = 1024
)

// events is core/v1 events.
func events() *Resource {
	s := eventStrategy{}
	return &Resource{
		Version: "v1", Resource: "events", Kind: "Event", ListKind: "EventList", Singular: "event",
		ShortNames: []string{"ev"}, Namespaced: true,
		New:     func() runtime.Object { return &corev1.Event{} },
		NewList: func() runtime.Object { return &corev1.EventList{} },

		Strategy: s,
		Table:    printers.Events,
		FieldSet: s.FieldSet,
		// Events may still be recorded about a namespace being deleted.
		CreateInTerminatingNamespace: true,
	}
}

type eventStrategy struct{}

// PrepareForCreate: events have no defaults and no status to clear.
func (eventStrategy) PrepareForCreate(obj runtime.Object) {}

// PrepareForUpdate: every field may be written (the event recorder
// patches count and lastTimestamp).
func (eventStrategy) PrepareForUpdate(obj, old runtime.Object) {}

// Validate checks a new event. Like kube-apiserver for core/v1 events,
// the name only has to be usable in a URL path (no DNS rule), and the
// event's own rules are reported before the metadata's.
func (eventStrategy) Validate(obj runtime.Object) field.ErrorList {
	e := obj.(*corev1.Event)
	errs := validateEventFields(e, coreReportingPath)
	return append(errs, ValidateMetaCreate(&e.ObjectMeta, true, pathSegmentName)...)
}

// ValidateUpdate checks metadata and the same field rules as create.
func (eventStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	e := obj.(*corev1.Event)
	errs := validateEventFields(e, coreReportingPath)
	return append(errs, ValidateMetaUpdate(&e.ObjectMeta, &old.(*corev1.Event).ObjectMeta)...)
}

// FieldSet offers the involved object's fields, reason, source, type and
// reporting component, as kube-apiserver.
func (eventStrategy) FieldSet(obj runtime.Object) fields.Set {
	e := obj.(*corev1.Event)
	source := e.Source.Component
	if source == "" {
		source = e.ReportingController
	}
	io := e.InvolvedObject
	return mergeFields(metaFields(e, true), fields.Set{
		"involvedObject.kind":            io.Kind,
		"involvedObject.namespace":       io.Namespace,
		"involvedObject.name":            io.Name,
		"involvedObject.uid":             string(io.UID),
		"involvedObject.apiVersion":      io.APIVersion,
		"involvedObject.resourceVersion": io.ResourceVersion,
		"involvedObject.fieldPath":       io.FieldPath,
		"reason":                         e.Reason,
		"reportingComponent":             e.ReportingController,
		"source":                         source,
		"type":                           e.Type,
	})
}

// coreReportingPath is how core/v1 names the reporting controller in
// errors; events.k8s.io/v1 calls it reportingController.
var coreReportingPath = field.NewPath("reportingComponent")

// validateEventFields follows kube's rules for core/v1 events, which every
// event passes whichever API wrote it. rcPath names the reporting
// controller as the request's API version does.
func validateEventFields(e *corev1.Event, rcPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	nsPath := field.NewPath("involvedObject", "namespace")
	mismatch := field.Invalid(nsPath, e.InvolvedObject.Namespace, "does not match event.namespace")
	if e.EventTime.IsZero() {
		// Old-style event: namespaces agree; a cluster-scoped object's
		// events live in "default" (or nowhere).
		if e.InvolvedObject.Namespace == "" {
			if e.Namespace != "" && e.Namespace != metav1.NamespaceDefault {
				errs = append(errs, mismatch)
			}
		} else if e.Namespace != e.InvolvedObject.Namespace {
			errs = append(errs, mismatch)
		}
	} else {
		errs = append(errs, validateNewStyleEvent(e, mismatch, rcPath)...)
	}
	for _, msg := range content.IsDNS1123Subdomain(e.Namespace) {
		errs = append(errs, field.Invalid(field.NewPath("namespace"), e.Namespace, msg))
	}
	return errs
}

func validateNewStyleEvent(e *corev1.Event, mismatch *field.Error, rcPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if e.InvolvedObject.Namespace == "" && e.Namespace != metav1.NamespaceDefault && e.Namespace != metav1.NamespaceSystem {
		errs = append(errs, mismatch)
	}
	if e.ReportingController == "" {
		errs = append(errs, field.Required(rcPath, ""))
	}
	for _, msg := range content.IsLabelKey(e.ReportingController) {
		errs = append(errs, field.Invalid(rcPath, e.ReportingController, msg))
	}
	errs = append(errs, requiredWithLimit(field.NewPath("reportingInstance"), e.ReportingInstance, eventReportingInstanceLimit)...)
	errs = append(errs, requiredWithLimit(field.NewPath("action"), e.Action, eventActionLimit)...)
	errs = append(errs, requiredWithLimit(field.NewPath("reason"), e.Reason, eventReasonLimit)...)
	if len(e.Message) > eventNoteLimit {
		errs = append(errs, field.Invalid(field.NewPath("message"), "", fmt.Sprintf("can have at most %v characters", eventNoteLimit)))
	}
	return errs
}

func requiredWithLimit(fldPath *field.Path, value string, limit int) field.ErrorList {
	if value == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	if len(value) > limit {
		return field.ErrorList{field.Invalid(fldPath, "", fmt.Sprintf("can have at most %v characters", limit))}
	}
	return nil
}

// pathSegmentName is the only name rule kube-apiserver applies to core/v1
// events: the name must be usable as one URL path segment.
func pathSegmentName(name string, prefix bool) []string {
	if prefix {
		return content.IsPathSegmentPrefix(name)
	}
	return content.IsPathSegmentName(name)
}
