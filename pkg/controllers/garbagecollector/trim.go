package garbagecollector

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ownershipOnly is the transform of the collector's metadata-only
// informers: it keeps what the collector reads (identity, owner
// references, finalizers, deletion state) and drops labels, annotations
// and managedFields, which it never reads. Its writes never send a cached
// object back (a merge patch of the finalizers, a delete), so nothing
// dropped here can be lost on the server.
func ownershipOnly(obj any) (any, error) {
	if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
		m.Labels, m.Annotations, m.ManagedFields = nil, nil, nil
	}
	return obj, nil
}
