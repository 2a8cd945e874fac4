// Package apiserver is miniapi's HTTP API: Kubernetes paths, verbs, content
// types and Status errors over a storage.Store.
//
// # Basics
//
// Every served resource is an entry of the server's registry.Registry;
// the handlers are generic over it and name no kind. A request's whole
// path is in a few files: server.go (routes), middleware.go and limits.go
// (what wraps every request: logs, metrics, in-flight caps, deadlines),
// requestinfo.go (what the path names), dispatch.go (the verb, and
// whether it is served), one file per verb (get.go, list.go, create.go, update.go, patch.go, delete.go,
// watch.go), view.go (subresources served as another kind: scale),
// decode.go and negotiate.go/encode.go (bodies in and out), errors.go.
// Discovery and OpenAPI are derived from the registry and built again
// when it changes.
//
// A kind whose objects hold something outside them (a Service's ClusterIP
// and NodePorts) has registry.WriteHooks: create and update call its Begin
// hook after the kind's defaults and before validation, and its finish
// with whether the store write succeeded; delete calls AfterDelete once
// the object is gone; Bootstrap hands it every stored object before
// anything is served, to repair what a crash left behind. The same hooks
// carry kube's admission plugins (LimitRanger, Priority,
// DefaultStorageClass): a hook that is also a registry.CreateValidator is
// called on create after validation, as kube's validating admission is.
//
// Objects are stored as their JSON without kind, apiVersion and
// resourceVersion, under /<group or "core">/<resource>/<namespace>/<name>
// (no namespace segment for cluster-scoped kinds). metadata.resourceVersion
// is the store's ModRevision, spliced into the stored bytes on the way out,
// so a plain JSON list or watch never decodes an object it need not look at.
// A converted resource (registry.StoredAs: events.k8s.io events) uses the
// keys and type of the resource that stores its objects; its objects are
// always decoded, converted and encoded, never spliced.
//
// authenticate.go puts each request's user in its context (package authn):
// the owner of its bearer token when Config.Authenticator is set, else the
// loopback administrator. A computed resource (registry.Resource.Create:
// the review kinds) answers a create from its hook and stores nothing.
//
// # Caveats
//
// A list at an older revision, or a continue token, is answered from the
// store's history; once the history no longer reaches back that far the
// answer is 410 Expired. Server-side apply keeps no managedFields: it
// merges the applied configuration like a strategic merge patch, so a
// field dropped from the configuration stays, and managers never conflict.
package apiserver
