package testenv

import (
	"fmt"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// BenchmarkStartWithCRDs is one environment's Start and Stop (API alone,
// as envtest) with no CRDs and with 10 generated CRDs, each with a schema
// and a CEL rule, Established and in discovery when Start returns. Both
// run in one invocation so that their ratio is the cost of the CRDs.
func BenchmarkStartWithCRDs(b *testing.B) {
	ten := make([]*apiextensionsv1.CustomResourceDefinition, 10)
	for i := range ten {
		ten[i] = generatedCRD(fmt.Sprintf("kind%ds.bench.example.com", i), fmt.Sprintf("Kind%d", i))
	}
	for _, tc := range []struct {
		name string
		crds []*apiextensionsv1.CustomResourceDefinition
	}{{"none", nil}, {"10-crds", ten}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				env := &Environment{CRDs: tc.crds}
				if _, err := env.Start(); err != nil {
					b.Fatal(err)
				}
				if err := env.Stop(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
