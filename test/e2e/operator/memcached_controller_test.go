package operator

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The specs run in order on one Memcached: each step builds on the last,
// as the operator's life does (created, scaled, rejected, deleted).
var _ = Describe("Memcached Controller", Ordered, func() {
	const resourceName = "cache"
	typeNamespacedName := types.NamespacedName{Name: resourceName, Namespace: ns}
	memcached := &Memcached{}

	Context("When the manager runs", func() {
		It("should hold the leader election Lease", func() {
			var lease coordinationv1.Lease
			Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: ns, Name: electionID}, &lease)).To(Succeed())
			Expect(lease.Spec.HolderIdentity).NotTo(BeNil())
			Expect(*lease.Spec.HolderIdentity).NotTo(BeEmpty())
		})
	})

	Context("When reconciling a resource", func() {
		It("should run spec.size Ready pods and report them in status", func() {
			By("creating the custom resource for the Kind Memcached")
			memcached = &Memcached{
				ObjectMeta: metav1.ObjectMeta{Name: resourceName, Namespace: ns},
				Spec:       MemcachedSpec{Size: 2},
			}
			Expect(k8sClient.Create(ctx, memcached)).To(Succeed())
			Expect(memcached.Spec.Image).To(HavePrefix("memcached:"), "the schema's default image")

			By("waiting for the Deployment's pods and the status")
			expectReady(typeNamespacedName, 2)
		})

		It("should own the Deployment it created", func() {
			var d appsv1.Deployment
			Expect(k8sClient.Get(ctx, typeNamespacedName, &d)).To(Succeed())
			ref := metav1.GetControllerOf(&d)
			Expect(ref).NotTo(BeNil())
			Expect(ref.UID).To(Equal(memcached.UID))
			Expect(ref.Kind).To(Equal("Memcached"))
			Expect(ref.APIVersion).To(Equal(groupVersion.String()))
		})

		It("should apply its ConfigMap server-side", func() {
			expectConfigMapApplied(memcached, "2")
		})

		It("should scale the Deployment when spec.size changes", func() {
			Expect(k8sClient.Get(ctx, typeNamespacedName, memcached)).To(Succeed())
			patch := client.MergeFrom(memcached.DeepCopy())
			memcached.Spec.Size = 3
			Expect(k8sClient.Patch(ctx, memcached, patch)).To(Succeed())
			expectReady(typeNamespacedName, 3)
			expectConfigMapApplied(memcached, "3")
		})

		It("should be refused a size over 10 by the CRD's CEL rule", func() {
			var m Memcached
			Expect(k8sClient.Get(ctx, typeNamespacedName, &m)).To(Succeed())
			m.Spec.Size = 11
			err := k8sClient.Update(ctx, &m)
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "Invalid, got %v", err)
			Expect(err).To(MatchError(ContainSubstring("size must be at most 10")))
			Expect(k8sClient.Get(ctx, typeNamespacedName, &m)).To(Succeed())
			Expect(m.Spec.Size).To(Equal(int32(3)), "the object is unchanged")
		})

		It("should record events when it creates and scales the Deployment", func() {
			want := map[string]string{
				"DeploymentCreated": "created Deployment cache with 2 replicas",
				"Scaled":            "scaled Deployment cache from 2 to 3",
			}
			Eventually(func(g Gomega) {
				var list eventsv1.EventList
				g.Expect(k8sClient.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
				got := map[string]string{}
				for _, ev := range list.Items {
					if ev.Regarding.UID == memcached.UID && ev.ReportingController == fieldOwner {
						got[ev.Reason] = ev.Note
					}
				}
				g.Expect(got).To(Equal(want))
			}).Should(Succeed())
		})

		It("should serve its metrics over HTTPS to an authenticated, authorized scraper only", func() {
			expectSecureMetrics()
		})

		It("should have the Deployment and ConfigMap garbage-collected when deleted", func() {
			Expect(k8sClient.Delete(ctx, memcached)).To(Succeed())
			from := time.Now()
			for _, obj := range []struct {
				what string
				obj  client.Object
				name string
			}{
				{"the Memcached", &Memcached{}, resourceName},
				{"the Deployment", &appsv1.Deployment{}, resourceName},
				{"the ConfigMap", &corev1.ConfigMap{}, resourceName + "-config"},
			} {
				Eventually(func() error {
					return k8sClient.Get(ctx, types.NamespacedName{Namespace: ns, Name: obj.name}, obj.obj)
				}).Should(Satisfy(apierrors.IsNotFound), obj.what+" is deleted")
			}
			GinkgoWriter.Printf("Deployment and ConfigMap garbage-collected %s after the Memcached's delete\n", time.Since(from).Round(time.Millisecond))
		})
	})
})

// expectReady waits until the Deployment runs size Ready pods and the
// Memcached's status says so.
func expectReady(key types.NamespacedName, size int32) {
	GinkgoHelper()
	from := time.Now()
	Eventually(func(g Gomega) {
		var d appsv1.Deployment
		g.Expect(k8sClient.Get(ctx, key, &d)).To(Succeed())
		g.Expect(d.Spec.Replicas).To(HaveValue(Equal(size)))
		g.Expect(d.Status.ReadyReplicas).To(Equal(size))
	}).Should(Succeed(), "the Deployment's pods are Ready")
	Eventually(func(g Gomega) {
		var m Memcached
		g.Expect(k8sClient.Get(ctx, key, &m)).To(Succeed())
		g.Expect(m.Status.ReadyReplicas).To(Equal(size))
		g.Expect(meta.IsStatusConditionTrue(m.Status.Conditions, conditionAvailable)).To(BeTrue())
	}).Should(Succeed(), "the Memcached's status reports them")
	GinkgoWriter.Printf("%d replicas Ready and reported in status %s after the change\n", size, time.Since(from).Round(time.Millisecond))
}

// expectConfigMapApplied checks the ConfigMap the operator applies: its
// data, its controller, and a managedFields entry of the operator's
// Apply.
func expectConfigMapApplied(m *Memcached, size string) {
	GinkgoHelper()
	var cm corev1.ConfigMap
	Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: ns, Name: m.Name + "-config"}, &cm)).To(Succeed())
		g.Expect(cm.Data).To(HaveKeyWithValue("size", size))
	}).Should(Succeed())
	ref := metav1.GetControllerOf(&cm)
	Expect(ref).NotTo(BeNil())
	Expect(ref.UID).To(Equal(m.UID))
	Expect(cm.ManagedFields).To(ContainElement(SatisfyAll(
		HaveField("Manager", fieldOwner),
		HaveField("Operation", metav1.ManagedFieldsOperationApply),
	)), "an Apply entry of %s", fieldOwner)
}
