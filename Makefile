# miniapi — see README.md. Every target works on a fresh machine with Go and
# make: go.mod, test/e2e/go.mod and bench/go.mod bring every dependency.

GO          ?= go
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
BENCH       ?= quick

.PHONY: build run test unit e2e kubectl lint bench bench-smoke clean

## build: bin/miniapi and bin/minictl
build:
	CGO_ENABLED=0 $(GO) build -o bin/miniapi ./cmd/miniapi
	CGO_ENABLED=0 $(GO) build -o bin/minictl ./cmd/minictl

## run: build, then start miniapi in the foreground with its defaults
run: build
	bin/miniapi

## kubectl: the real kubectl, built from k8s.io/kubectl in the test module
KUBECTL_VERSION := v1.37.2
KUBECTL_LDFLAGS := $(foreach p,k8s.io/client-go/pkg/version k8s.io/component-base/version,\
	-X $(p).gitVersion=$(KUBECTL_VERSION) -X $(p).gitMajor=1 -X $(p).gitMinor=37 -X $(p).gitTreeState=clean)
kubectl:
	cd test/e2e && $(GO) build -ldflags '$(KUBECTL_LDFLAGS)' -o ../../bin/kubectl ./cmd/kubectl

## test: lint, unit tests (with -race), then the end-to-end suite
test: lint unit e2e bench-smoke

unit:
	$(GO) test -race -count=1 ./...

e2e: build kubectl
	cd test/e2e && $(GO) test -count=1 -timeout 12m ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	cd test/e2e && $(GO) vet ./...
	cd bench && $(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	cd test/e2e && $(GO) run $(STATICCHECK) ./...

## bench: the benchmark harness (BENCH=quick or BENCH=full); the bench module keeps its deps out of go.mod
bench: build
	cd bench && $(GO) run . --profile=$(BENCH) $(BENCH_FLAGS)

## bench-smoke: every benchmark workload at tiny sizes, checking the figures are all there and sane
bench-smoke: build
	cd bench && $(GO) test -count=1 -timeout 5m ./...

clean:
	rm -rf bin miniapi-data bench-results.json bench-*.png
