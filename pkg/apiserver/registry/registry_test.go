package registry

import (
	"testing"
)

// Every served resource's strategy must cope with an empty object (the
// handlers call FieldSet(New()) to learn the supported field labels), and
// must offer the optional interfaces its subresources need.
func TestEveryStrategyHandlesEmptyObjectsAndSubresources(t *testing.T) {
	tracksGeneration := map[string]bool{"pods": true, "replicasets": true, "deployments": true}
	for _, r := range All() {
		t.Run(r.Resource, func(t *testing.T) {
			s := r.Strategy
			obj, old := r.New(), r.New()
			s.PrepareForCreate(obj)
			_ = s.Validate(obj)
			s.PrepareForUpdate(obj, old)
			_ = s.ValidateUpdate(obj, old)
			s.PrepareForStatusUpdate(obj, old)
			if s.GenerationChanged(r.New(), r.New()) {
				t.Error("GenerationChanged on two empty objects")
			}
			fs := s.FieldSet(r.New())
			if _, ok := fs["metadata.name"]; !ok {
				t.Errorf("FieldSet lacks metadata.name: %v", fs)
			}
			if _, ok := fs["metadata.namespace"]; ok != r.Namespaced {
				t.Errorf("FieldSet has metadata.namespace = %v, namespaced = %v", ok, r.Namespaced)
			}
			if _, ok := s.(Scaler); ok != r.HasSubresource("scale") {
				t.Errorf("Scaler implemented = %v, scale subresource = %v", ok, r.HasSubresource("scale"))
			}
			if sv, ok := s.(StatusValidator); ok != r.HasSubresource("status") {
				t.Errorf("StatusValidator implemented = %v, status subresource = %v", ok, r.HasSubresource("status"))
			} else if ok {
				_ = sv.ValidateStatusUpdate(obj, old)
			}
			gt, ok := s.(GenerationTracker)
			if got := ok && gt.TracksGeneration(); got != tracksGeneration[r.Resource] {
				t.Errorf("tracks generation = %v, want %v", got, tracksGeneration[r.Resource])
			}
		})
	}
}
