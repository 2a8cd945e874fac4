// Package deps pins the product's dependencies while the packages that use
// them are being written. It is removed once every dependency has a user.
package deps

import (
	_ "gopkg.in/evanphx/json-patch.v4"
	_ "github.com/gorilla/mux"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/prometheus/client_golang/prometheus/promhttp"
	_ "github.com/spf13/cobra"
	_ "go.etcd.io/bbolt"
	_ "k8s.io/api/apps/v1"
	_ "k8s.io/api/core/v1"
	_ "k8s.io/api/autoscaling/v1"
	_ "k8s.io/apimachinery/pkg/api/errors"
	_ "k8s.io/apimachinery/pkg/util/strategicpatch"
	_ "k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	_ "k8s.io/client-go/kubernetes"
	_ "k8s.io/client-go/informers"
	_ "k8s.io/client-go/tools/clientcmd"
	_ "k8s.io/client-go/tools/record"
	_ "k8s.io/client-go/util/workqueue"
	_ "k8s.io/client-go/util/jsonpath"
	_ "k8s.io/client-go/discovery"
	_ "k8s.io/client-go/dynamic"
	_ "sigs.k8s.io/yaml"
	_ "k8s.io/kube-openapi/pkg/validation/spec"
)
