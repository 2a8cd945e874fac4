package cli

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	discoveryv1 "k8s.io/api/discovery/v1"
)

// maxShownEndpoints is how many addresses describe lists before "+ N more".
const maxShownEndpoints = 3

// endpointsForPort is a Service port's Endpoints line: the ready addresses
// of the slices that carry the port (host:port), or of port-less slices
// (bare addresses), the first three of them and "+ N more..." after.
//
// Like kubectl, it decides there are "more" as soon as a fourth endpoint
// is met, ready or not, and counts only ready ones: three ready and one
// unready endpoint read "a,b,c + 0 more...".
func endpointsForPort(slices []discoveryv1.EndpointSlice, portName string) string {
	if len(slices) == 0 {
		return "<none>"
	}
	var list []string
	more, count := false, 0
	add := func(ep discoveryv1.Endpoint, addr string) {
		if len(list) == maxShownEndpoints {
			more = true
		}
		if ep.Conditions.Ready != nil && !*ep.Conditions.Ready {
			return
		}
		if !more {
			list = append(list, addr)
		}
		count++
	}
	for _, s := range slices {
		if len(s.Ports) == 0 {
			for _, ep := range s.Endpoints {
				if len(ep.Addresses) > 0 {
					add(ep, ep.Addresses[0])
				}
			}
			continue
		}
		for _, p := range s.Ports {
			if p.Name == nil || *p.Name != portName || p.Port == nil {
				continue
			}
			for _, ep := range s.Endpoints {
				if len(ep.Addresses) > 0 {
					add(ep, net.JoinHostPort(ep.Addresses[0], strconv.Itoa(int(*p.Port))))
				}
			}
		}
	}
	out := strings.Join(list, ",")
	if more {
		return fmt.Sprintf("%s + %d more...", out, count-maxShownEndpoints)
	}
	return out
}
