# miniapi — see README.md. Every target works on a fresh machine with Go and
# make: go.mod, test/e2e/go.mod and bench/go.mod bring every dependency.

GO          ?= go
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
BENCH       ?= quick

.PHONY: build generate run test unit e2e kubectl helm etcd lint bench bench-smoke soak fuzz fuzz-smoke clean

## build: bin/miniapi and bin/minictl
build:
	CGO_ENABLED=0 $(GO) build -o bin/miniapi ./cmd/miniapi
	CGO_ENABLED=0 $(GO) build -o bin/minictl ./cmd/minictl

## generate: pkg/apiserver/openapi/generated, openapi-gen's OpenAPI definitions
## of the served kinds' k8s.io/api packages and the types they refer to (the
## same generator and markers kube-apiserver's definitions come from).
## openapi-gen is pinned in hack/tools/go.mod at go.mod's kube-openapi version,
## so that gengo and x/tools stay out of go.mod. Its API rule report lists
## k8s.io/api's own violations (kube keeps them in its exceptions list), not
## ours, so it goes to a scratch file.
OPENAPI_PACKAGES := $(addprefix k8s.io/api/,apps/v1 authentication/v1 authorization/v1 autoscaling/v1 \
	autoscaling/v2 batch/v1 coordination/v1 core/v1 discovery/v1 events/v1 networking/v1 policy/v1 \
	rbac/v1 scheduling/v1 scheduling/v1alpha3 storage/v1) \
	$(addprefix k8s.io/apimachinery/pkg/,apis/meta/v1 runtime util/intstr api/resource version) \
	k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1
generate:
	cd hack/tools && $(GO) build -o ../../bin/openapi-gen k8s.io/kube-openapi/cmd/openapi-gen
	bin/openapi-gen --go-header-file hack/boilerplate.go.txt \
	  --output-dir pkg/apiserver/openapi/generated --output-pkg github.com/miniapi/miniapi/pkg/apiserver/openapi/generated \
	  --output-file zz_generated.openapi.go --report-filename $${TMPDIR:-/tmp}/miniapi-openapi-violations.list \
	  $(OPENAPI_PACKAGES)

## run: build, then start miniapi in the foreground with its defaults
run: build
	bin/miniapi

## kubectl: the real kubectl, built from k8s.io/kubectl in the test module
KUBECTL_VERSION := v1.37.2
KUBECTL_LDFLAGS := $(foreach p,k8s.io/client-go/pkg/version k8s.io/component-base/version,\
	-X $(p).gitVersion=$(KUBECTL_VERSION) -X $(p).gitMajor=1 -X $(p).gitMinor=37 -X $(p).gitTreeState=clean)
kubectl:
	cd test/e2e && $(GO) build -ldflags '$(KUBECTL_LDFLAGS)' -o ../../bin/kubectl ./cmd/kubectl

## helm: the real helm, built from helm.sh/helm/v3's own main package, which
## test/e2e/go.mod pins as a tool (helm v3 keeps its root command in package
## main, so there is nothing to import). The ldflags are the ones helm's own
## Makefile sets for a release: its version, and the Kubernetes version of the
## client-go it was built with (1.37) as its default capabilities.
HELM_VERSION := v3.22.0
HELM_LDFLAGS := -X helm.sh/helm/v3/internal/version.version=$(HELM_VERSION) \
	-X helm.sh/helm/v3/internal/version.gitTreeState=clean \
	$(foreach p,helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil,\
	-X $(p).k8sVersionMajor=1 -X $(p).k8sVersionMinor=37)
helm:
	cd test/e2e && $(GO) build -ldflags '$(HELM_LDFLAGS)' -o ../../bin/helm helm.sh/helm/v3/cmd/helm

## etcd: the real etcd server, built from go.etcd.io/etcd/server/v3 (the
## version test/e2e/go.mod pins) through its own etcdmain.Main, for the
## multi-server end-to-end tests and for trying --etcd-servers locally.
etcd:
	cd test/e2e && $(GO) build -o ../../bin/etcd ./cmd/etcd

## test: lint, unit tests (with -race), the end-to-end suite, the bench smoke and a few seconds of fuzzing per target
test: lint unit e2e bench-smoke fuzz-smoke

unit:
	$(GO) test -race -count=1 ./...

e2e: build kubectl helm etcd
	@# go test hides a passing package's output, so say here, where it shows,
	@# that the live page's browser tests will skip (test/e2e/ui).
	@[ -n "$$MINIAPI_CHROMIUM" ] || command -v chromium >/dev/null || command -v chromium-browser >/dev/null || \
	  command -v google-chrome >/dev/null || command -v google-chrome-stable >/dev/null || command -v headless-shell >/dev/null || \
	  echo "*** WARNING: no Chromium on PATH: the live page tests (test/e2e/ui) will be SKIPPED; apt-get install chromium" >&2
	cd test/e2e && $(GO) test -count=1 -timeout 12m ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	cd test/e2e && $(GO) vet ./...
	cd bench && $(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	cd test/e2e && $(GO) run $(STATICCHECK) ./...

## bench: the benchmark harness (BENCH=quick or BENCH=full); the bench module keeps its deps out of go.mod.
## Then pkg/testenv's figures, measured in the test module (the bench module
## does not import the main module, and pkg/testenv would bring it apiextensions
## and another bbolt than its raw-bbolt baseline's).
bench: build etcd
	cd bench && $(GO) run . --profile=$(BENCH) $(BENCH_FLAGS)
	@echo "testenv: Start to first request (goal ≤ 50 ms, ≤ 100 ms with 10 CRDs), 100 environments (goal ≤ 10 s), RSS per environment; envtest publishes 5–15 s per start"
	cd test/e2e && $(GO) test -run XXX -bench . ./testenvbench/
	@echo "managedFields: a list of 1000 pods, one Deployment update and one watch event, each with and without field management (B/object: a pod's size in the JSON list)"
	$(GO) test -run XXX -bench 'BenchmarkList$$|BenchmarkUpdateFieldManagement|BenchmarkCreateFieldManagement|BenchmarkWatchEventManagedFields' ./pkg/apiserver/

## bench-smoke: every benchmark workload at tiny sizes, checking the figures are all there and sane,
## and the one-minute soak (bench/soak's TestSoak)
bench-smoke: build etcd
	cd bench && $(GO) test -count=1 -timeout 5m ./...

## soak: bin/miniapi under steady churn (ConfigMap writes, Deployments scaling,
## 100 watchers) for DURATION; samples RSS, live heap, goroutines and DB size
## into soak-results/soak.csv and soak.png, and fails when one keeps growing
## after warm-up. make test runs a one-minute version in bench-smoke.
DURATION ?= 30m
soak: build
	cd bench && $(GO) run ./soak --duration=$(DURATION)

## fuzz: every fuzz target for FUZZTIME each (go test runs their seed
## corpora in the unit step too). Fuzzing needs an instrumented build of the
## whole dependency tree: minutes on 2 cores the first time, cached after.
FUZZTIME ?= 1m
FUZZ_TARGETS := ./pkg/apiserver:FuzzCreateBody ./pkg/apiserver:FuzzPatch ./pkg/apiserver:FuzzListQuery \
	./pkg/cli:FuzzJSONPath ./pkg/cli:FuzzCustomColumns
fuzz:
	@for t in $(FUZZ_TARGETS); do \
	  echo "fuzz $${t#*:} ($(FUZZTIME))"; \
	  $(GO) test -run XXX -fuzz "^$${t#*:}\$$" -fuzztime $(FUZZTIME) $${t%%:*} || exit 1; \
	done

## fuzz-smoke: every fuzz target for a few seconds (make test).
fuzz-smoke:
	$(MAKE) fuzz FUZZTIME=3s

clean:
	rm -rf bin miniapi-data bench-results.json bench-*.png soak-results
