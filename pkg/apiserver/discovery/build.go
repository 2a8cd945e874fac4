package discovery

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// documents holds every discovery document, encoded once.
type documents struct {
	// legacy maps a path (/apis, /apis/apps, /api/v1, ...) to its JSON.
	// /api is kept too but written per request, because its
	// serverAddressByClientCIDRs names the address the client used.
	legacy map[string][]byte
	// aggregated maps /api and /apis to the APIGroupDiscoveryList JSON.
	aggregated map[string]encoded
}

// encoded is a document's JSON and its ETag.
type encoded struct {
	body []byte
	etag string
}

// groupVersions collects resources per group and version, keeping the
// registry's order of groups (core first) and versions.
type groupVersions struct {
	groups   []string
	versions map[string][]string
	members  map[string][]*registry.Resource // keyed by group + "/" + version
}

func collect(resources []*registry.Resource) groupVersions {
	gv := groupVersions{versions: map[string][]string{}, members: map[string][]*registry.Resource{}}
	for _, r := range resources {
		key := r.Group + "/" + r.Version
		if _, seen := gv.versions[r.Group]; !seen {
			gv.groups = append(gv.groups, r.Group)
		}
		if len(gv.members[key]) == 0 {
			gv.versions[r.Group] = append(gv.versions[r.Group], r.Version)
		}
		gv.members[key] = append(gv.members[key], r)
	}
	for k := range gv.members {
		sort.Slice(gv.members[k], func(i, j int) bool { return gv.members[k][i].Resource < gv.members[k][j].Resource })
	}
	for g, versions := range gv.versions {
		if customGroup(resources, g) {
			sort.SliceStable(versions, func(i, j int) bool {
				return version.CompareKubeAwareVersionStrings(versions[i], versions[j]) > 0
			})
		}
	}
	return gv
}

// customGroup reports whether only custom resources serve group: its
// versions are then listed highest priority first (v2, v1, v1beta1), the
// first being the preferred one, as kube-apiserver lists CRD groups,
// whichever CRD added a version first.
func customGroup(resources []*registry.Resource, group string) bool {
	for _, r := range resources {
		if r.Group == group && r.Schema == nil {
			return false
		}
	}
	return true
}

func build(resources []*registry.Resource) (*documents, error) {
	gv := collect(resources)
	d := &documents{legacy: map[string][]byte{}, aggregated: map[string]encoded{}}
	add := func(path string, v interface{}) error {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("discovery: encoding %s: %w", path, err)
		}
		d.legacy[path] = b
		return nil
	}
	var groups []metav1.APIGroup
	for _, g := range gv.groups {
		for _, v := range gv.versions[g] {
			list := resourceList(groupVersion(g, v), gv.members[g+"/"+v])
			if err := add(versionPath(g, v), list); err != nil {
				return nil, err
			}
		}
		if g == "" {
			if err := add("/api", apiVersions(gv.versions[""], "")); err != nil {
				return nil, err
			}
			continue
		}
		group := apiGroup(g, gv.versions[g])
		groups = append(groups, group)
		group.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
		if err := add("/apis/"+g, group); err != nil {
			return nil, err
		}
	}
	if err := add("/apis", metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: nonNil(groups)}); err != nil {
		return nil, err
	}
	for path, want := range map[string]bool{"/api": true, "/apis": false} {
		enc, err := encodeAggregated(aggregatedList(gv, want))
		if err != nil {
			return nil, err
		}
		d.aggregated[path] = enc
	}
	return d, nil
}

func nonNil(g []metav1.APIGroup) []metav1.APIGroup {
	if g == nil {
		return []metav1.APIGroup{}
	}
	return g
}

func groupVersion(group, version string) string {
	if group == "" {
		return version
	}
	return group + "/" + version
}

func versionPath(group, version string) string {
	if group == "" {
		return "/api/" + version
	}
	return "/apis/" + group + "/" + version
}

// apiVersions is the /api document; serverAddress is filled per request.
func apiVersions(versions []string, serverAddress string) metav1.APIVersions {
	return metav1.APIVersions{
		TypeMeta:                   metav1.TypeMeta{Kind: "APIVersions"},
		Versions:                   versions,
		ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: serverAddress}},
	}
}

func apiGroup(group string, versions []string) metav1.APIGroup {
	g := metav1.APIGroup{Name: group}
	for _, v := range versions {
		g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: group + "/" + v, Version: v})
	}
	g.PreferredVersion = g.Versions[0]
	return g
}

// storageVersionHash is kube-apiserver's hash of the kind's storage
// version: the first 8 bytes of sha256("<group>/<version>/<kind>"), base64.
// Clients only compare it for changes.
func storageVersionHash(group, version, kind string) string {
	sum := sha256.Sum256([]byte(group + "/" + version + "/" + kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}
