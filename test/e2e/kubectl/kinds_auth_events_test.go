package kubectl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// startWithAdminToken runs miniapi on HTTPS with the reference's static
// admin token (user admin, uid admin-uid, group system:masters); the
// kubeconfig it writes carries that token (kubectl sends tokens only over
// HTTPS).
func startWithAdminToken(t *testing.T) *harness.Server {
	t.Helper()
	tokens := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(tokens, []byte("peer-admin-token-0123456789,admin,admin-uid,\"system:masters\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return harness.StartTLS(t, "--token-auth-file", tokens)
}

// TestAuthCanIAndWhoami compares kubectl auth with the reference (section
// 22). miniapi enforces no authorization, so can-i answers yes for every
// user, --as=jane included (kube's RBAC answers no there).
func TestAuthCanIAndWhoami(t *testing.T) {
	t.Parallel()
	s := startWithAdminToken(t)
	expectOut(t, s, "yes\n", "auth", "can-i", "create", "pods")
	expectOut(t, s, "yes\n", "auth", "can-i", "*", "*", "--all-namespaces")
	expectOut(t, s, "yes\n", "auth", "can-i", "get", "/healthz")
	expectOut(t, s, "yes\n", "auth", "can-i", "create", "pods", "--as=jane")
	expectOut(t, s, `ATTRIBUTE   VALUE
Username    admin
UID         admin-uid
Groups      [system:masters system:authenticated]
`, "auth", "whoami")
	expectOut(t, s, `ATTRIBUTE   VALUE
Username    jane
Groups      [devs system:authenticated]
`, "auth", "whoami", "--as=jane", "--as-group=devs")
	res := ok(t, s, "auth", "whoami", "-o", "json")
	if want := `{
    "kind": "SelfSubjectReview",
    "apiVersion": "authentication.k8s.io/v1",
    "metadata": {
        "creationTimestamp": "<time>"
    },
    "status": {
        "userInfo": {
            "username": "admin",
            "uid": "admin-uid",
            "groups": [
                "system:masters",
                "system:authenticated"
            ]
        }
    }
}
`; harness.Mask(res.Stdout) != want {
		t.Errorf("whoami -o json:\n%s", res.Stdout)
	}
	lines := strings.SplitAfter(ok(t, s, "auth", "can-i", "--list").Stdout, "\n")
	if len(lines) < 12 {
		t.Fatalf("can-i --list: %q", lines)
	}
	if got, want := strings.Join(lines[:12], ""), `Resources                                       Non-Resource URLs   Resource Names   Verbs
*.*                                             []                  []               [*]
                                                [*]                 []               [*]
selfsubjectreviews.authentication.k8s.io        []                  []               [create]
selfsubjectaccessreviews.authorization.k8s.io   []                  []               [create]
selfsubjectrulesreviews.authorization.k8s.io    []                  []               [create]
                                                [/api/*]            []               [get]
                                                [/api]              []               [get]
                                                [/apis/*]           []               [get]
                                                [/apis]             []               [get]
                                                [/healthz]          []               [get]
                                                [/healthz]          []               [get]
`; got != want {
		t.Errorf("can-i --list | head -12:\n got:\n%s\nwant:\n%s", got, want)
	}
}

// Without --token-auth-file (loopback only), every request is the
// documented admin, system:unsecured.
func TestWhoamiWithoutTokens(t *testing.T) {
	t.Parallel()
	s := start(t)
	expectOut(t, s, `ATTRIBUTE   VALUE
Username    system:unsecured
Groups      [system:masters system:authenticated]
`, "auth", "whoami")
	expectOut(t, s, "yes\n", "auth", "can-i", "create", "pods")
	// Discovery lists the reviews as create-only (reference section 21).
	expectOut(t, s, `NAME                        SHORTNAMES   APIVERSION                NAMESPACED   KIND                       VERBS    CATEGORIES
localsubjectaccessreviews                authorization.k8s.io/v1   true         LocalSubjectAccessReview   create   
selfsubjectaccessreviews                 authorization.k8s.io/v1   false        SelfSubjectAccessReview    create   
selfsubjectrulesreviews                  authorization.k8s.io/v1   false        SelfSubjectRulesReview     create   
subjectaccessreviews                     authorization.k8s.io/v1   false        SubjectAccessReview        create   
`, "api-resources", "--api-group=authorization.k8s.io", "-o", "wide")
	expectOut(t, s, `NAME                 SHORTNAMES   APIVERSION                 NAMESPACED   KIND                VERBS    CATEGORIES
selfsubjectreviews                authentication.k8s.io/v1   false        SelfSubjectReview   create   
tokenreviews                      authentication.k8s.io/v1   false        TokenReview         create   
`, "api-resources", "--api-group=authentication.k8s.io", "-o", "wide")
}

const eventYAML = `apiVersion: events.k8s.io/v1
kind: Event
metadata:
  name: web-0.manual1
eventTime: "2026-12-01T08:46:30.000000Z"
reportingController: example.com/my-controller
reportingInstance: my-controller-1
action: Testing
reason: Tested
type: Normal
note: A note written with events.k8s.io/v1
regarding:
  apiVersion: v1
  kind: Pod
  name: web-0
  namespace: default
`

// TestEventsThroughBothAPIs follows reference section 11: an event made
// through events.k8s.io/v1 reads through both APIs with kube's field
// mapping, and tables and errors print as kube's.
func TestEventsThroughBothAPIs(t *testing.T) {
	t.Parallel()
	s := start(t)
	expectOut(t, s, "event.events.k8s.io/web-0.manual1 created\n", "create", "-f", manifest(t, "event.yaml", eventYAML))
	res := ok(t, s, "get", "events.v1.events.k8s.io", "web-0.manual1", "-o", "yaml")
	if want := `action: Testing
apiVersion: events.k8s.io/v1
deprecatedFirstTimestamp: null
deprecatedLastTimestamp: null
deprecatedSource: {}
eventTime: "<time>"
kind: Event
metadata:
  creationTimestamp: "<time>"
  name: web-0.manual1
  namespace: default
  resourceVersion: "<rv>"
  uid: <uid>
note: A note written with events.k8s.io/v1
reason: Tested
regarding:
  apiVersion: v1
  kind: Pod
  name: web-0
  namespace: default
reportingController: example.com/my-controller
reportingInstance: my-controller-1
type: Normal
`; harness.Mask(res.Stdout) != want {
		t.Errorf("events.k8s.io yaml:\n%s", res.Stdout)
	}
	res = ok(t, s, "get", "events.v1.", "web-0.manual1", "-o", "yaml")
	if want := `action: Testing
apiVersion: v1
eventTime: "<time>"
firstTimestamp: null
involvedObject:
  apiVersion: v1
  kind: Pod
  name: web-0
  namespace: default
kind: Event
lastTimestamp: null
message: A note written with events.k8s.io/v1
metadata:
  creationTimestamp: "<time>"
  name: web-0.manual1
  namespace: default
  resourceVersion: "<rv>"
  uid: <uid>
reason: Tested
reportingComponent: example.com/my-controller
reportingInstance: my-controller-1
source: {}
type: Normal
`; harness.Mask(res.Stdout) != want {
		t.Errorf("core yaml:\n%s", res.Stdout)
	}
	// Through either API, the same table; LAST SEEN is the age of the
	// event's time.
	for _, resource := range []string{"events.events.k8s.io", "events"} {
		rows := table(t, ok(t, s, "get", resource, "--field-selector", "reason=Tested").Stdout)
		if len(rows) == 2 && agePattern.MatchString(rows[1][0]) {
			rows[1][0] = "<age>"
		}
		if got, want := join(rows), "LAST SEEN | TYPE | REASON | OBJECT | MESSAGE\n<age> | Normal | Tested | pod/web-0 | A note written with events.k8s.io/v1\n"; got != want {
			t.Errorf("get %s:\n got:\n%s\nwant:\n%s", resource, got, want)
		}
	}
	fails(t, s, "The Event \"web-0.manual1\" is invalid: reason: Invalid value: \"Changed\": field is immutable\n",
		"patch", "events.v1.events.k8s.io", "web-0.manual1", "--type=merge", "-p", `{"reason":"Changed"}`)
	expectOut(t, s, "event/core1 created\n", "create", "-f", manifest(t, "core.yaml", `apiVersion: v1
kind: Event
metadata:
  name: core1
involvedObject:
  kind: Pod
  name: web-0
  namespace: default
reason: Hand
message: core/v1 event with no source
type: Normal
`))
	if got := jsonpath(t, s, "{.note}", "get", "events.events.k8s.io", "core1"); got != "core/v1 event with no source" {
		t.Errorf("core event through events.k8s.io: note %q", got)
	}
}

// TestLeases follows reference section 10.
func TestLeases(t *testing.T) {
	t.Parallel()
	s := start(t)
	expectOut(t, s, "lease.coordination.k8s.io/my-lock created\n", "apply", "-f", manifest(t, "lease.yaml", `apiVersion: coordination.k8s.io/v1
kind: Lease
metadata:
  name: my-lock
spec:
  holderIdentity: pod-a
  leaseDurationSeconds: 15
  acquireTime: "2026-12-01T08:46:00.000000Z"
  renewTime: "2026-12-01T08:46:00.000000Z"
  leaseTransitions: 0
`))
	expectTable(t, s, "NAME | HOLDER | AGE\nmy-lock | pod-a | AGE\n", "get", "leases")
	expectTable(t, s, "NAME | HOLDER | AGE\nmy-lock | pod-a | AGE\n", "get", "lease", "-o", "wide")
	fails(t, s, "The Lease \"my-lock\" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0\n",
		"patch", "lease", "my-lock", "--type=merge", "-p", `{"spec":{"leaseDurationSeconds":0}}`)
	fails(t, s, "The Lease \"my-lock\" is invalid: spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0\n",
		"patch", "lease", "my-lock", "--type=merge", "-p", `{"spec":{"leaseTransitions":-1}}`)
}
