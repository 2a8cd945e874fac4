// Package crd serves apiextensions.k8s.io/v1 CustomResourceDefinitions
// and keeps the server's registry in step with them: a CRD whose names
// are accepted is Established, and from then on its versions are served
// as resources of their own (package customresource builds them); a CRD
// being deleted first loses its custom resources.
//
// # Basics
//
// The CRD kind is an ordinary registry resource (resource.go,
// strategy.go). Controller (controller.go, acceptnames.go) is the
// level-triggered loop that kube-apiserver's apiextensions controllers run
// (naming, establishing, finalizing), run inside the server whenever a CRD
// changes.
//
// A CRD's own rules are the defaults kube-apiserver fills in, the status it
// keeps on create and update, and the validation that answers 422 with
// kube-apiserver 1.37's field paths and messages.
// A write goes SetDefaults (on decode), then PrepareForCreate or PrepareForUpdate,
// then Validate or ValidateUpdate; a write to /status is checked by
// ValidateStatusUpdate. Each returns field errors for a 422 Invalid.
//
// Validation runs on apiextensions' internal form of the object, as kube-apiserver's
// does: the v1 object is converted first, and a schema, subresources or printer
// columns that every version shares are moved to the top level by that conversion.
// That is why an error in the only version's schema is reported under
// spec.validation.openAPIV3Schema, as kube-apiserver reports it, and why the values
// in messages print as internal types.
//
// # Caveats
//
// The conversion strategy Webhook is refused (Unsupported value): miniapi never
// calls conversion webhooks, so a CRD that needs one could not be served.
//
// Checks that only matter for objects written by older kube-apiservers
// (v1beta1's top-level fields, schemas stored before structural schemas were
// required) are held to the strict form: miniapi never stored such objects.
//
// Where kube-apiserver walks a Go map (properties, definitions), the order of its
// errors is random; here properties are visited in name order.
package crd
