package printers

import (
	"time"

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/miniapi/miniapi/pkg/apiserver/convert"
)

// EventsV1 is kube-apiserver's Table for events.k8s.io/v1 Events: the same
// columns and cells as core/v1 events (the same objects), while each row
// holds the events.k8s.io item.
var EventsV1 = printer{columns: eventColumns, cells: eventsV1Cells}.table

func eventsV1Cells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	return eventCells(convert.EventToCore(obj.(*eventsv1.Event)), now)
}
