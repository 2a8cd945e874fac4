//lint:file-ignore SA1019 v1 Endpoints is deprecated in kube 1.33+; serving and publishing it is what this file is for

package printers

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Endpoints is kube-apiserver's Table for core/v1 Endpoints: NAME,
// ENDPOINTS (the ready ip:port pairs, at most three), AGE.
var Endpoints = printer{columns: endpointsColumns, cells: endpointsCells}.table

// EndpointSlices is kube-apiserver's Table for discovery.k8s.io/v1
// EndpointSlices: NAME, ADDRESSTYPE, PORTS, ENDPOINTS, AGE, with no wide
// columns.
var EndpointSlices = printer{columns: endpointSliceColumns, cells: endpointSliceCells}.table

var endpointsColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Endpoints", "string", corev1.Endpoints{}.SwaggerDoc()["subsets"], 0),
	ageCol(),
}

var endpointSliceColumns = func() []metav1.TableColumnDefinition {
	doc := discoveryv1.EndpointSlice{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		nameCol(),
		col("AddressType", "string", doc["addressType"], 0),
		col("Ports", "string", doc["ports"], 0),
		col("Endpoints", "string", doc["endpoints"], 0),
		ageCol(),
	}
}()

// shownEntries is how many ports or addresses a cell lists before it
// says "+ N more...".
const shownEntries = 3

// truncatedList collects a cell's entries, keeping the first few and
// counting the rest.
type truncatedList struct {
	shown []string
	total int
}

func (l *truncatedList) add(s string) {
	if len(l.shown) < shownEntries {
		l.shown = append(l.shown, s)
	}
	l.total++
}

// String joins the entries, as kubectl's "a,b,c + 2 more..."; empty is "".
func (l *truncatedList) String() string {
	s := strings.Join(l.shown, ",")
	if l.total > len(l.shown) {
		s += fmt.Sprintf(" + %d more...", l.total-len(l.shown))
	}
	return s
}

// endpointsCells lists each ready address with each port of its subset;
// a subset without ports (a headless Service) lists bare addresses. Not
// ready addresses are not shown, and no subsets at all is "<none>".
func endpointsCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	ep := obj.(*corev1.Endpoints)
	cell := "<none>"
	if len(ep.Subsets) > 0 {
		var l truncatedList
		for _, ss := range ep.Subsets {
			if len(ss.Ports) == 0 {
				for _, a := range ss.Addresses {
					l.add(a.IP)
				}
				continue
			}
			for _, p := range ss.Ports {
				for _, a := range ss.Addresses {
					l.add(net.JoinHostPort(a.IP, strconv.Itoa(int(p.Port))))
				}
			}
		}
		cell = l.String()
	}
	return []interface{}{ep.Name, cell, age(ep.CreationTimestamp, now)}, nil
}

// endpointSliceCells lists ports (a port without a number by its name,
// or "*") and every endpoint's addresses, ready or not; an empty list is
// "<unset>".
func endpointSliceCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	s := obj.(*discoveryv1.EndpointSlice)
	var ports, addrs truncatedList
	for _, p := range s.Ports {
		switch {
		case p.Port != nil:
			ports.add(strconv.Itoa(int(*p.Port)))
		case p.Name != nil:
			ports.add(*p.Name)
		default:
			ports.add("*")
		}
	}
	for _, ep := range s.Endpoints {
		for _, a := range ep.Addresses {
			addrs.add(a)
		}
	}
	return []interface{}{s.Name, string(s.AddressType), orUnset(ports.String()), orUnset(addrs.String()), age(s.CreationTimestamp, now)}, nil
}

// orUnset is "<unset>" for an empty string, kubectl's placeholder for
// EndpointSlice cells.
func orUnset(s string) string {
	if s == "" {
		return "<unset>"
	}
	return s
}
