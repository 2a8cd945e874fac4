package registry

// Events of events.k8s.io/v1: the same objects as core/v1 events, kept
// under core's keys in core's type and converted on the way in and out,
// so an event written through either API is read, listed and watched
// through both. Writes through this API get kube's strict rules on top
// of core's: an eventTime, a known type, and none of the deprecated
// fields on create; most fields immutable on update.

import (
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/convert"
	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// eventsV1 is events.k8s.io/v1 events.
func eventsV1() *Resource {
	s := eventsV1Strategy{}
	return &Resource{
		Group: "events.k8s.io", Version: "v1", Resource: "events", Kind: "Event", ListKind: "EventList", Singular: "event",
		ShortNames: []string{"ev"}, Namespaced: true,
		New:     func() runtime.Object { return &eventsv1.Event{} },
		NewList: func() runtime.Object { return &eventsv1.EventList{} },

		Strategy:                     s,
		Table:                        printers.EventsV1,
		FieldSet:                     s.FieldSet,
		CreateInTerminatingNamespace: true,
		StoredAs: &StoredAs{
			Version:  "v1",
			Resource: "events",
			New:      func() runtime.Object { return &corev1.Event{} },
			ToStored: func(obj runtime.Object) (runtime.Object, error) {
				e, ok := obj.(*eventsv1.Event)
				if !ok {
					return nil, fmt.Errorf("not an events.k8s.io/v1 Event: %T", obj)
				}
				return convert.EventToCore(e), nil
			},
			FromStored: func(stored runtime.Object) (runtime.Object, error) {
				e, ok := stored.(*corev1.Event)
				if !ok {
					return nil, fmt.Errorf("not a core/v1 Event: %T", stored)
				}
				return convert.EventFromCore(e), nil
			},
		},
	}
}

type eventsV1Strategy struct{}

// PrepareForCreate: events have no defaults and no status.
func (eventsV1Strategy) PrepareForCreate(obj runtime.Object) {}

// PrepareForUpdate: what may change is for ValidateUpdate to say.
func (eventsV1Strategy) PrepareForUpdate(obj, old runtime.Object) {}

// eventsV1ReportingPath is how events.k8s.io/v1 names the reporting
// controller in errors.
var eventsV1ReportingPath = field.NewPath("reportingController")

// Validate applies core's rules, then the strict rules of this API. As in
// kube-apiserver, the checks run on the event in core's form, so most
// paths are core's names (the deprecated fields keep them too).
func (eventsV1Strategy) Validate(obj runtime.Object) field.ErrorList {
	e := convert.EventToCore(obj.(*eventsv1.Event))
	errs := validateEventFields(e, eventsV1ReportingPath)
	errs = append(errs, ValidateMetaCreate(&e.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)...)
	errs = append(errs, validateEventSeries(e)...)
	if e.EventTime.IsZero() {
		errs = append(errs, field.Required(field.NewPath("eventTime"), ""))
	}
	if e.Type != corev1.EventTypeNormal && e.Type != corev1.EventTypeWarning {
		errs = append(errs, field.Invalid(field.NewPath("type"), "", fmt.Sprintf("has invalid value: %v", e.Type)))
	}
	unset := func(set bool, name string) {
		if set {
			errs = append(errs, field.Invalid(field.NewPath(name), "", "needs to be unset"))
		}
	}
	unset(!e.FirstTimestamp.IsZero(), "firstTimestamp")
	unset(!e.LastTimestamp.IsZero(), "lastTimestamp")
	unset(e.Count != 0, "count")
	unset(e.Source.Component != "" || e.Source.Host != "", "source")
	return errs
}

// ValidateUpdate applies core's rules, then keeps what an event says
// immutable, as kube-apiserver does for writes through this API.
func (eventsV1Strategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	e := convert.EventToCore(obj.(*eventsv1.Event))
	o := convert.EventToCore(old.(*eventsv1.Event))
	errs := validateEventFields(e, eventsV1ReportingPath)
	errs = append(errs, ValidateMetaUpdate(&e.ObjectMeta, &o.ObjectMeta)...)
	if !reflect.DeepEqual(e.Series, o.Series) {
		errs = append(errs, validateEventSeries(e)...)
	}
	immutable := func(now, before interface{}, name string) {
		errs = append(errs, apimachineryvalidation.ValidateImmutableField(now, before, field.NewPath(name))...)
	}
	immutable(e.InvolvedObject, o.InvolvedObject, "involvedObject")
	immutable(e.Reason, o.Reason, "reason")
	immutable(e.Message, o.Message, "message")
	immutable(e.Source, o.Source, "source")
	immutable(e.FirstTimestamp, o.FirstTimestamp, "firstTimestamp")
	immutable(e.LastTimestamp, o.LastTimestamp, "lastTimestamp")
	immutable(e.Count, o.Count, "count")
	immutable(e.Type, o.Type, "type")
	immutable(e.EventTime, o.EventTime, "eventTime")
	immutable(e.Action, o.Action, "action")
	immutable(e.Related, o.Related, "related")
	immutable(e.ReportingController, o.ReportingController, "reportingController")
	immutable(e.ReportingInstance, o.ReportingInstance, "reportingInstance")
	return errs
}

// validateEventSeries: a series has happened at least twice, and when
// last.
func validateEventSeries(e *corev1.Event) field.ErrorList {
	var errs field.ErrorList
	if e.Series == nil {
		return nil
	}
	if e.Series.Count < 2 {
		errs = append(errs, field.Invalid(field.NewPath("series.count"), "", "should be at least 2"))
	}
	if e.Series.LastObservedTime.IsZero() {
		errs = append(errs, field.Required(field.NewPath("series.lastObservedTime"), ""))
	}
	return errs
}

// FieldSet offers what kube-apiserver's events.k8s.io/v1 field selectors
// match: the regarding object's fields, reason, reporting controller,
// source (the deprecated source's component, else the reporting
// controller) and type.
func (eventsV1Strategy) FieldSet(obj runtime.Object) fields.Set {
	e := obj.(*eventsv1.Event)
	source := e.DeprecatedSource.Component
	if source == "" {
		source = e.ReportingController
	}
	r := e.Regarding
	return mergeFields(metaFields(e, true), fields.Set{
		"regarding.kind":            r.Kind,
		"regarding.namespace":       r.Namespace,
		"regarding.name":            r.Name,
		"regarding.uid":             string(r.UID),
		"regarding.apiVersion":      r.APIVersion,
		"regarding.resourceVersion": r.ResourceVersion,
		"regarding.fieldPath":       r.FieldPath,
		"reason":                    e.Reason,
		"reportingController":       e.ReportingController,
		"source":                    source,
		"type":                      e.Type,
	})
}
