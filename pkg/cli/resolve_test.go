package cli

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/restmapper"
	kubetesting "k8s.io/client-go/testing"
)

// testMapper is a RESTMapper over miniapi's resources, with short names.
func testMapper() meta.RESTMapper {
	core := &metav1.APIResourceList{GroupVersion: "v1", APIResources: []metav1.APIResource{
		{Name: "pods", SingularName: "pod", Namespaced: true, Kind: "Pod", ShortNames: []string{"po"}, Verbs: []string{"get", "list"}},
		{Name: "namespaces", SingularName: "namespace", Kind: "Namespace", ShortNames: []string{"ns"}, Verbs: []string{"get", "list"}},
		{Name: "nodes", SingularName: "node", Kind: "Node", ShortNames: []string{"no"}, Verbs: []string{"get", "list"}},
		{Name: "events", SingularName: "event", Namespaced: true, Kind: "Event", ShortNames: []string{"ev"}, Verbs: []string{"get", "list"}},
	}}
	apps := &metav1.APIResourceList{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
		{Name: "deployments", SingularName: "deployment", Namespaced: true, Kind: "Deployment", ShortNames: []string{"deploy"}, Verbs: []string{"get", "list"}},
		{Name: "deployments/scale", Namespaced: true, Kind: "Scale", Group: "autoscaling", Version: "v1", Verbs: []string{"get", "patch"}},
		{Name: "replicasets", SingularName: "replicaset", Namespaced: true, Kind: "ReplicaSet", ShortNames: []string{"rs"}, Verbs: []string{"get", "list"}},
	}}
	d := &fake.FakeDiscovery{Fake: &kubetesting.Fake{Resources: []*metav1.APIResourceList{core, apps}}}
	groups := []*restmapper.APIGroupResources{
		{Group: metav1.APIGroup{Name: "", Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "v1", Version: "v1"}}, PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "v1", Version: "v1"}},
			VersionedResources: map[string][]metav1.APIResource{"v1": core.APIResources}},
		{Group: metav1.APIGroup{Name: "apps", Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "apps/v1", Version: "v1"}}, PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "apps/v1", Version: "v1"}},
			VersionedResources: map[string][]metav1.APIResource{"v1": apps.APIResources}},
	}
	return restmapper.NewShortcutExpander(restmapper.NewDiscoveryRESTMapper(groups), d, nil)
}

func TestResolveResourceNames(t *testing.T) {
	m := testMapper()
	cases := map[string]string{
		"deploy": "deployments", "deployment": "deployments", "deployments": "deployments", "Deployment": "deployments",
		"deployments.apps": "deployments", "deployments.v1.apps": "deployments", "DEPLOY": "deployments",
		"rs": "replicasets", "po": "pods", "pod": "pods", "ns": "namespaces", "no": "nodes", "ev": "events", "Pod": "pods",
	}
	for arg, want := range cases {
		got, err := resolveWith(m, arg)
		if err != nil {
			t.Errorf("%s: %v", arg, err)
			continue
		}
		if got.Resource.Resource != want {
			t.Errorf("%s: got %s, want %s", arg, got.Resource.Resource, want)
		}
	}
	if got, _ := resolveWith(m, "deploy"); got.GroupVersionKind.Group != "apps" || got.Scope.Name() != meta.RESTScopeNameNamespace {
		t.Errorf("deploy mapping: %+v", got)
	}
	if got, _ := resolveWith(m, "ns"); got.Scope.Name() != meta.RESTScopeNameRoot {
		t.Errorf("namespaces should be cluster-scoped: %+v", got)
	}
}

func TestResolveUnknownResource(t *testing.T) {
	_, err := resolveWith(testMapper(), "nosuchresource")
	if err == nil || ErrorMessage(err) != `error: the server doesn't have a resource type "nosuchresource"` {
		t.Fatalf("got %v / %q", err, ErrorMessage(err))
	}
}

func TestResourcePath(t *testing.T) {
	m := testMapper()
	deploy, _ := resolveWith(m, "deploy")
	ns, _ := resolveWith(m, "ns")
	pods, _ := resolveWith(m, "po")
	cases := []struct{ got, want string }{
		{ResourcePath(deploy, "default", "web"), "/apis/apps/v1/namespaces/default/deployments/web"},
		{ResourcePath(deploy, "", ""), "/apis/apps/v1/deployments"},
		{ResourcePath(pods, "kube-system", ""), "/api/v1/namespaces/kube-system/pods"},
		{ResourcePath(ns, "default", "default"), "/api/v1/namespaces/default"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
}
