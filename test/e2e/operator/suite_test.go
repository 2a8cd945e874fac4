package operator

// The suite kubebuilder scaffolds in internal/controller/suite_test.go,
// with testenv where the scaffold has envtest. The manager is the one
// kubebuilder's cmd/main.go builds (manager_test.go), started here so
// that the specs check the operator end to end.

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/miniapi/miniapi/pkg/testenv"
)

var (
	ctx       context.Context
	cancel    context.CancelFunc
	testEnv   *testenv.Environment
	cfg       *rest.Config
	k8sClient client.Client
	scheme    = runtime.NewScheme()
	// metricsAddr is where the manager serves /metrics over HTTPS.
	metricsAddr string
	// managerDone delivers what the manager's Start returned.
	managerDone = make(chan error, 1)
)

func TestControllers(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Controller Suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(GinkgoWriter, nil)))
	SetDefaultEventuallyTimeout(time.Minute)
	SetDefaultEventuallyPollingInterval(50 * time.Millisecond)

	ctx, cancel = context.WithCancel(context.TODO())

	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(addToScheme(scheme)).To(Succeed())
	// +kubebuilder:scaffold:scheme

	By("bootstrapping test environment")
	// The scaffold's two lines, changed:
	//	"sigs.k8s.io/controller-runtime/pkg/envtest"  →  "github.com/miniapi/miniapi/pkg/testenv"
	//	testEnv = &envtest.Environment{               →  testEnv = &testenv.Environment{
	// Controllers: true is what envtest cannot do: the built-in
	// controllers and a simulated kubelet give the Deployment Ready pods
	// and the garbage collector runs.
	testEnv = &testenv.Environment{
		Controllers:           true,
		CRDDirectoryPaths:     []string{filepath.Join("testdata", "crd")},
		ErrorIfCRDPathMissing: true,
	}

	started := time.Now()
	var err error
	// cfg is defined in this file globally.
	cfg, err = testEnv.Start()
	Expect(err).NotTo(HaveOccurred())
	Expect(cfg).NotTo(BeNil())
	GinkgoWriter.Printf("testenv with the Memcached CRD started in %s\n", time.Since(started).Round(time.Millisecond))

	k8sClient, err = client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	Expect(k8sClient).NotTo(BeNil())

	By("starting the manager as cmd/main.go starts it")
	metricsAddr, err = freeLoopbackAddress()
	Expect(err).NotTo(HaveOccurred())
	mgr, err := newManager(cfg, scheme, metricsAddr)
	Expect(err).NotTo(HaveOccurred())
	Expect((&memcachedReconciler{}).setup(mgr)).To(Succeed())
	go func() {
		defer GinkgoRecover()
		managerDone <- mgr.Start(ctx)
	}()
	Eventually(mgr.Elected()).Should(BeClosed(), "the manager is elected leader")
})

var _ = AfterSuite(func() {
	By("tearing down the test environment")
	if cancel == nil {
		return // BeforeSuite failed before it made a context
	}
	cancel()
	// The manager releases its Lease as it stops, while the server runs.
	Eventually(managerDone).WithTimeout(30*time.Second).Should(Receive(BeNil()), "the manager stops cleanly")
	err := testEnv.Stop()
	Expect(err).NotTo(HaveOccurred())
})
