package crd

import "testing"

// BenchmarkValidate measures a create of the reference CRD: conversion,
// structural checks, defaults and one CEL rule compiled.
func BenchmarkValidate(b *testing.B) {
	crd := widgets(b)
	PrepareForCreate(crd)
	b.ReportAllocs()
	for b.Loop() {
		if errs := Validate(crd); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}
