package registry

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Every built-in resource's rules must cope with empty objects (the
// handlers call Fields(New()) to learn the supported field labels), and
// only the kinds kube-apiserver keeps a generation for have one.
func TestBuiltinResourcesHandleEmptyObjects(t *testing.T) {
	tracksGeneration := map[string]bool{"pods": true, "replicasets": true, "deployments": true, "statefulsets": true, "daemonsets": true,
		"ingresses": true, "ingressclasses": true, "networkpolicies": true, "priorityclasses": true, "endpointslices": true,
		"jobs": true, "cronjobs": true, "podtemplates": true, "replicationcontrollers": true, "horizontalpodautoscalers": true, "poddisruptionbudgets": true}
	for _, r := range builtin(t) {
		t.Run(r.Resource, func(t *testing.T) {
			if r.Create != nil {
				// A computed resource answers an empty request without
				// panicking (an error or an answer).
				_, _ = r.Create(context.Background(), r.New())
				return
			}
			obj, old := r.New(), r.New()
			r.Strategy.PrepareForCreate(obj)
			_ = r.Strategy.Validate(obj)
			r.Strategy.PrepareForUpdate(obj, old)
			_ = r.Strategy.ValidateUpdate(obj, old)
			for name, sub := range r.Subresources {
				if sub.PrepareForUpdate != nil {
					sub.PrepareForUpdate(r.New(), r.New())
				}
				if sub.ValidateUpdate != nil {
					_ = sub.ValidateUpdate(r.New(), r.New())
				}
				if sub.View != nil {
					_ = sub.View.Get(r.New())
				}
				if sub.PrepareForUpdate == nil && sub.View == nil && sub.Action == nil && sub.Unavailable == "" {
					t.Errorf("%s: a subresource with no rules", name)
				}
			}
			if got := r.Generation != nil; got != tracksGeneration[r.Resource] {
				t.Errorf("tracks generation = %v, want %v", got, tracksGeneration[r.Resource])
			} else if got && r.Generation(r.New(), r.New()) {
				t.Error("generation moves between two empty objects")
			}
			fs := r.Fields(r.New())
			if _, ok := fs["metadata.name"]; !ok {
				t.Errorf("Fields lacks metadata.name: %v", fs)
			}
			if _, ok := fs["metadata.namespace"]; ok != r.Namespaced {
				t.Errorf("Fields has metadata.namespace = %v, namespaced = %v", ok, r.Namespaced)
			}
			if r.Table == nil {
				t.Error("no Table")
			} else if _, err := r.Table(r.NewList(), time.Now()); err != nil {
				t.Errorf("Table of an empty list: %v", err)
			}
		})
	}
}

func TestRegistryAddLookupReplace(t *testing.T) {
	reg, err := NewBuiltin(Options{})
	if err != nil {
		t.Fatal(err)
	}
	gen := reg.Generation()
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	if _, ok := reg.Lookup(pods); !ok {
		t.Fatal("pods not served")
	}
	if err := reg.Add(builtin(t)[2]); err == nil {
		t.Error("adding pods twice succeeded")
	}
	if reg.Generation() != gen {
		t.Error("a refused Add moved the generation")
	}

	if err := reg.Replace([]schema.GroupVersionResource{pods}, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := reg.Lookup(pods); ok {
		t.Error("pods still served after Replace removed them")
	}
	for _, r := range reg.All() {
		if r.Resource == "pods" {
			t.Error("All still lists pods")
		}
	}
	if reg.Generation() == gen {
		t.Error("removing did not move the generation")
	}
	gen = reg.Generation()
	if err := reg.Replace([]schema.GroupVersionResource{pods}, nil); err != nil {
		t.Fatal(err)
	}
	if reg.Generation() != gen {
		t.Error("removing what is not served moved the generation")
	}
	if err := reg.Add(builtin(t)[2]); err != nil {
		t.Fatal(err)
	}
	if all := reg.All(); all[len(all)-1].Resource != "pods" {
		t.Error("an added resource is not listed last")
	}
}

func TestRegistryRefusesIncompleteResources(t *testing.T) {
	reg, _ := New()
	bad := pods(Options{})
	bad.New = nil
	if err := reg.Add(bad); err == nil {
		t.Error("a resource without New was accepted")
	}
	bad = deployments()
	bad.Subresources["scale"].View.Apply = nil
	if err := reg.Add(bad); err == nil {
		t.Error("a view without Apply was accepted")
	}
}
