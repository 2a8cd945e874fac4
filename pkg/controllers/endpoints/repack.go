//lint:file-ignore SA1019 v1 Endpoints is deprecated in kube 1.33+; serving and publishing it is what this file is for

package endpoints

// The canonical layout of Endpoints subsets (kube's RepackSubsets), so
// equal content is always equal bytes and a comparison with what is
// stored never sees a change where there is none.

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/dump"
)

// Repack returns subsets in canonical form: ports offered on exactly the
// same addresses (with the same readiness; not ready wins over ready for
// one address) share a subset; addresses are sorted by IP bytes, then pod
// uid; ports and subsets by the hash of their dump. A subset
// without ports keeps its addresses in a subset without ports.
func Repack(subsets []corev1.EndpointSubset) []corev1.EndpointSubset {
	noPort := corev1.EndpointPort{Port: -1} // stands for "no ports" while grouping
	addrs := map[addrKey]corev1.EndpointAddress{}
	byPort := map[corev1.EndpointPort]map[addrKey]bool{} // port → address → ready
	var portOrder []corev1.EndpointPort
	add := func(port corev1.EndpointPort, a *corev1.EndpointAddress, ready bool) {
		k := keyOf(a)
		if _, ok := addrs[k]; !ok {
			addrs[k] = *a
		}
		set, ok := byPort[port]
		if !ok {
			set = map[addrKey]bool{}
			byPort[port] = set
			portOrder = append(portOrder, port)
		}
		if was, seen := set[k]; !seen || was {
			set[k] = ready
		}
	}
	for _, ss := range subsets {
		ports := ss.Ports
		if len(ports) == 0 {
			ports = []corev1.EndpointPort{noPort}
		}
		for _, port := range ports {
			for i := range ss.Addresses {
				add(port, &ss.Addresses[i], true)
			}
			for i := range ss.NotReadyAddresses {
				add(port, &ss.NotReadyAddresses[i], false)
			}
		}
	}
	groups := map[string]int{}
	var out []corev1.EndpointSubset
	for _, port := range portOrder {
		set := byPort[port]
		sig := signature(set)
		i, ok := groups[sig]
		if !ok {
			i = len(out)
			groups[sig] = i
			var ss corev1.EndpointSubset
			for k, ready := range set {
				if ready {
					ss.Addresses = append(ss.Addresses, addrs[k])
				} else {
					ss.NotReadyAddresses = append(ss.NotReadyAddresses, addrs[k])
				}
			}
			out = append(out, ss)
		}
		if port != noPort {
			out[i].Ports = append(out[i].Ports, port)
		}
	}
	for i := range out {
		sortAddresses(out[i].Addresses)
		sortAddresses(out[i].NotReadyAddresses)
		sortByHash(out[i].Ports)
	}
	sortByHash(out)
	return out
}

// addrKey tells pod addresses apart: the same IP may belong to two pods.
type addrKey struct {
	ip  string
	uid types.UID
}

func keyOf(a *corev1.EndpointAddress) addrKey {
	k := addrKey{ip: a.IP}
	if a.TargetRef != nil {
		k.uid = a.TargetRef.UID
	}
	return k
}

func lessKey(a, b addrKey) bool {
	if a.ip != b.ip {
		return a.ip < b.ip
	}
	return a.uid < b.uid
}

// signature names a set of addresses with their readiness.
func signature(set map[addrKey]bool) string {
	keys := make([]addrKey, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return lessKey(keys[i], keys[j]) })
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s/%s/%t;", k.ip, k.uid, set[k])
	}
	return b.String()
}

func sortAddresses(as []corev1.EndpointAddress) {
	sort.SliceStable(as, func(i, j int) bool { return lessKey(keyOf(&as[i]), keyOf(&as[j])) })
}

// sortByHash orders items by the FNV-128a hash of their dump, as kube's
// endpoint controller (1.37) orders Endpoints ports and subsets: for the
// reference's web-notarget, port 80 "http" comes before 9090 "metrics".
func sortByHash[T any](items []T) {
	type hashed struct {
		sum  []byte
		item T
	}
	hs := make([]hashed, len(items))
	for i, it := range items {
		h := fnv.New128a()
		h.Write([]byte(dump.ForHash(it)))
		hs[i] = hashed{h.Sum(nil), it}
	}
	sort.SliceStable(hs, func(a, b int) bool { return bytes.Compare(hs[a].sum, hs[b].sum) < 0 })
	for i := range hs {
		items[i] = hs[i].item
	}
}
