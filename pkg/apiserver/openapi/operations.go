package openapi

import (
	"sort"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// The operations of the served resources, in a form neutral between
// OpenAPI v2 and v3; v2.go and v3.go write them out.

// param is one path or query parameter.
type param struct {
	name, in, typ, description string
	required                   bool
}

// operation is one HTTP method on one path.
type operation struct {
	method      string // get, put, post, patch, delete
	id          string // kube's operationId: readAppsV1NamespacedDeployment
	description string
	action      string // x-kubernetes-action
	gvk         schema.GroupVersionKind
	query       []param
	// body is the definition name of the request body, "" for none.
	body      string
	patchBody bool
	// responses maps status codes to definition names.
	responses map[int]string
	watchable bool
	media     mediaTypes
	tag       string // kube's tag: the group version of the path
}

// pathItem is a path with its shared parameters and operations.
type pathItem struct {
	path   string
	params []param
	ops    []operation
}

const (
	statusDef        = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
	deleteOptionsDef = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
	patchDef         = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
)

func query(name, typ, description string) param {
	return param{name: name, in: "query", typ: typ, description: description}
}

var (
	prettyParam          = query("pretty", "string", "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget).")
	dryRunParam          = query("dryRun", "string", "When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive will result in an error response and no further processing of the request. Valid values are: - All: all dry run stages will be processed")
	fieldManagerParam    = query("fieldManager", "string", "fieldManager is a name associated with the actor or entity that is making these changes. The value must be less than or 128 characters long, and only contain printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint.")
	fieldValidationParam = query("fieldValidation", "string", "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore: drops unknown fields silently and keeps the last of duplicate fields. - Warn: does the same, and reports each unknown and duplicate field in a Warning response header. - Strict: fails the request with a BadRequest error naming every unknown and duplicate field. Strict is the default.")
	forceParam           = query("force", "boolean", "Force is going to \"force\" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests.")
	writeParams          = []param{dryRunParam, fieldManagerParam, fieldValidationParam}
	listParams           = []param{
		query("allowWatchBookmarks", "boolean", "allowWatchBookmarks requests watch events with type \"BOOKMARK\". Servers that do not implement bookmarks may ignore this flag."),
		query("continue", "string", "The continue option should be set when retrieving more results from the server. Its value is the metadata.continue of the previous page of the same list."),
		query("fieldSelector", "string", "A selector to restrict the list of returned objects by their fields. Defaults to everything."),
		query("labelSelector", "string", "A selector to restrict the list of returned objects by their labels. Defaults to everything."),
		query("limit", "integer", "limit is the maximum number of responses to return for a list call. If more items exist, the server sets the continue field on the list metadata."),
		query("resourceVersion", "string", "resourceVersion sets a constraint on what resource versions a request may be served from. Defaults to unset."),
		query("resourceVersionMatch", "string", "resourceVersionMatch determines how resourceVersion is applied to list calls. Defaults to unset."),
		query("sendInitialEvents", "boolean", "With sendInitialEvents=true the watch starts with synthetic ADDED events for the current state of all objects, followed by a BOOKMARK event annotated \"k8s.io/initial-events-end\": \"true\"."),
		query("timeoutSeconds", "integer", "Timeout for the list/watch call. This limits the duration of the call, regardless of any activity or inactivity."),
		query("watch", "boolean", "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications."),
	}
	deleteParams = []param{
		dryRunParam,
		query("gracePeriodSeconds", "integer", "The duration in seconds before the object should be deleted. Value must be non-negative integer. The value zero indicates delete immediately."),
		query("orphanDependents", "boolean", "Deprecated: please use the PropagationPolicy, this field will be deprecated in 1.7. Should the dependent objects be orphaned."),
		query("propagationPolicy", "string", "Whether and how garbage collection will be performed. Acceptable values are: 'Orphan', 'Background' and 'Foreground'."),
	}
)

// opNames builds kube's operationIds: verb + GroupVersion + [Namespaced] + Kind + suffix.
type opNames struct {
	gv, kind   string
	namespaced string
}

func namesFor(r *registry.Resource) opNames {
	n := opNames{gv: title(groupName(r.Group)) + title(r.Version), kind: r.Kind}
	if r.Namespaced {
		n.namespaced = "Namespaced"
	}
	return n
}

func (n opNames) id(verb, suffix string) string { return verb + n.gv + n.namespaced + n.kind + suffix }

// groupName is how operation ids and tags name a group: "core" for the
// legacy group, and without the ".k8s.io" of kube's own groups
// (rbac.authorization.k8s.io is RbacAuthorization).
func groupName(group string) string {
	if group == "" {
		return "core"
	}
	return strings.TrimSuffix(group, ".k8s.io")
}

// title joins the words of s (split at anything but letters, digits and
// "_"), each capitalised: example.com is ExampleCom.
func title(s string) string {
	parts := strings.FieldsFunc(s, func(r rune) bool { return !isIDRune(r) })
	for i, p := range parts {
		parts[i] = strings.ToUpper(p[:1]) + p[1:]
	}
	return strings.Join(parts, "")
}

func isIDRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// article is what goes before a kind in "create a Widget": "an" before a
// vowel, nothing before a plural (Endpoints), as kube-apiserver writes it.
func article(kind string) string {
	switch {
	case strings.HasSuffix(kind, "s") && !strings.HasSuffix(kind, "ss"):
		return ""
	case strings.ContainsRune("aeiouAEIOU", rune(kind[0])):
		return "an "
	}
	return "a "
}

func withParams(lists ...[]param) []param {
	var out []param
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// pathsFor lists the paths of one resource: its collection, its items,
// its subresources and, for namespaced kinds, the all-namespaces list.
func pathsFor(d *definitions, r *registry.Resource, kindDef, listDef string) []pathItem {
	base := "/apis/" + r.Group + "/" + r.Version
	if r.Group == "" {
		base = "/api/" + r.Version
	}
	collection := base + "/" + r.Resource
	common := []param{prettyParam}
	if r.Namespaced {
		collection = base + "/namespaces/{namespace}/" + r.Resource
		common = append([]param{{name: "namespace", in: "path", typ: "string", required: true, description: "object name and auth scope, such as for teams and projects"}}, common...)
	}
	nameParam := param{name: "name", in: "path", typ: "string", required: true, description: "name of the " + r.Kind}
	n, gvk := namesFor(r), r.GroupVersionKind()
	items := []pathItem{
		{path: collection, params: common, ops: []operation{
			{method: "get", id: n.id("list", ""), description: "list or watch objects of kind " + r.Kind, action: "list", gvk: gvk,
				query: listParams, responses: map[int]string{200: listDef}, watchable: true},
			{method: "post", id: n.id("create", ""), description: "create " + article(r.Kind) + r.Kind, action: "post", gvk: gvk,
				query: writeParams, body: kindDef, responses: map[int]string{200: kindDef, 201: kindDef, 202: kindDef}},
			{method: "delete", id: "delete" + n.gv + "Collection" + n.namespaced + n.kind, description: "delete collection of " + r.Kind, action: "deletecollection", gvk: gvk,
				query: withParams(deleteParams, listParams[1:9]), body: deleteOptionsDef, responses: map[int]string{200: statusDef}},
		}},
		{path: collection + "/{name}", params: append([]param{nameParam}, common...), ops: itemOps(n, "", kindDef, gvk, true)},
	}
	items = servedItems(r, items)
	for _, name := range subresourceNames(r) {
		sub := r.Subresources[name]
		def, subGVK := kindDef, gvk
		if sub.View != nil {
			def = d.addKind(sub.View.New(), sub.Kind)
			// kube names a built-in's view kind (Scale) on the view's
			// operations, and a custom resource's own kind on all of its.
			if r.Schema == nil {
				subGVK = sub.Kind
			}
		}
		items = append(items, pathItem{path: collection + "/{name}/" + name, params: append([]param{nameParam}, common...),
			ops: servedOps(sub, itemOps(n, title(name), def, subGVK, false))})
	}
	if r.Namespaced && r.Serves("list") {
		items = append(items, pathItem{path: base + "/" + r.Resource, params: []param{prettyParam}, ops: []operation{
			{method: "get", id: "list" + n.gv + r.Kind + "ForAllNamespaces", description: "list or watch objects of kind " + r.Kind, action: "list", gvk: gvk,
				query: listParams, responses: map[int]string{200: listDef}, watchable: true},
		}})
	}
	return finishOps(r, items)
}

// finishOps sets the tag and media types of every operation. A custom
// resource's differ from a built-in's as kube-apiserver's do: JSON and
// YAML only, no strategic merge patch, a patch that answers only 200, and
// a list described without "or watch".
func finishOps(r *registry.Resource, items []pathItem) []pathItem {
	tag := tagOf(r.GroupVersionKind())
	media := builtinMedia
	if r.Schema != nil {
		media = customMedia
	}
	for i := range items {
		for j := range items[i].ops {
			op := &items[i].ops[j]
			op.media, op.tag = media, tag
			switch {
			case r.Schema == nil:
			case op.method == "patch":
				delete(op.responses, 201)
			case op.action == "list":
				op.description = "list objects of kind " + r.Kind
			}
		}
	}
	return items
}

// servedItems keeps the operations the main resource serves (a review
// kind serves only create), dropping paths left with none.
func servedItems(r *registry.Resource, items []pathItem) []pathItem {
	verbOf := map[string]string{"get": "get", "list": "list", "post": "create", "put": "update", "patch": "patch",
		"delete": "delete", "deletecollection": "deletecollection"}
	var out []pathItem
	for _, it := range items {
		var ops []operation
		for _, op := range it.ops {
			if r.Serves(verbOf[op.action]) {
				ops = append(ops, op)
			}
		}
		if len(ops) > 0 {
			it.ops = ops
			out = append(out, it)
		}
	}
	return out
}

// subresourceNames are the subresources to describe, in name order; those
// miniapi can never serve are left out.
func subresourceNames(r *registry.Resource) []string {
	var names []string
	for name, sub := range r.Subresources {
		if sub.Unavailable == "" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// servedOps keeps the operations whose verb sub serves.
func servedOps(sub *registry.Subresource, ops []operation) []operation {
	verbOf := map[string]string{"get": "get", "put": "update", "patch": "patch", "post": "create"}
	var out []operation
	for _, op := range ops {
		if sub.Serves(verbOf[op.method]) {
			out = append(out, op)
		}
	}
	return out
}

// itemOps are read, replace and patch of an object or subresource, and
// delete of an object.
func itemOps(n opNames, suffix, def string, gvk schema.GroupVersionKind, deletable bool) []operation {
	what := "the specified " + n.kind
	if suffix != "" {
		what = strings.ToLower(suffix) + " of the specified " + n.kind
	}
	ops := []operation{
		{method: "get", id: n.id("read", suffix), description: "read " + what, action: "get", gvk: gvk, responses: map[int]string{200: def}},
		{method: "put", id: n.id("replace", suffix), description: "replace " + what, action: "put", gvk: gvk,
			query: writeParams, body: def, responses: map[int]string{200: def, 201: def}},
		{method: "patch", id: n.id("patch", suffix), description: "partially update " + what, action: "patch", gvk: gvk,
			query: append(append([]param{}, writeParams...), forceParam), body: patchDef, patchBody: true, responses: map[int]string{200: def, 201: def}},
	}
	if deletable {
		ops = append(ops, operation{method: "delete", id: n.id("delete", ""), description: "delete " + article(n.kind) + n.kind, action: "delete", gvk: gvk,
			query: deleteParams, body: deleteOptionsDef, responses: map[int]string{200: statusDef, 202: statusDef}})
	}
	return ops
}
