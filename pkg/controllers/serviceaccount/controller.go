// Package serviceaccount keeps a "default" ServiceAccount in every active
// namespace, as kube-controller-manager's serviceaccounts-controller does:
// it is made when a namespace appears and made again whenever it is
// deleted. Nothing is made in a namespace being deleted (the API server
// would refuse it, and the namespace controller is emptying it).
//
// As in Kubernetes 1.37, no token Secret is made for it.
package serviceaccount

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/miniapi/miniapi/pkg/controllers/internal/driver"
)

// DefaultName is the ServiceAccount every namespace has.
const DefaultName = "default"

// Config configures a Controller.
type Config struct {
	Client    kubernetes.Interface
	Informers informers.SharedInformerFactory
	Logger    *slog.Logger
	Clock     clock.WithTicker
}

// Controller makes the missing "default" ServiceAccounts. Its keys are
// namespace names.
type Controller struct {
	client     kubernetes.Interface
	namespaces corelisters.NamespaceLister
	accounts   corelisters.ServiceAccountLister
	log        *slog.Logger
	driver     *driver.Driver
}

// New validates cfg, fills defaults and registers the event handlers: a
// namespace added or changed, or a ServiceAccount deleted, queues its
// namespace.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Informers == nil {
		return nil, errors.New("serviceaccount: Client and Informers are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	nsInf := cfg.Informers.Core().V1().Namespaces()
	saInf := cfg.Informers.Core().V1().ServiceAccounts()
	c := &Controller{
		client:     cfg.Client,
		namespaces: nsInf.Lister(),
		accounts:   saInf.Lister(),
		log:        cfg.Logger.With("controller", "serviceaccount"),
	}
	d, err := driver.New(driver.Config{
		Name: "serviceaccount", Reconciler: c, Workers: 1, Logger: cfg.Logger, Clock: cfg.Clock,
		Synced: []cache.InformerSynced{nsInf.Informer().HasSynced, saInf.Informer().HasSynced},
	})
	if err != nil {
		return nil, err
	}
	c.driver = d
	if _, err := nsInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    d.EnqueueObject,
		UpdateFunc: func(_, obj any) { d.EnqueueObject(obj) },
	}); err != nil {
		return nil, fmt.Errorf("serviceaccount: %w", err)
	}
	if _, err := saInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if sa, ok := obj.(*corev1.ServiceAccount); ok {
				d.Enqueue(sa.Namespace)
			}
		},
	}); err != nil {
		return nil, fmt.Errorf("serviceaccount: %w", err)
	}
	return c, nil
}

// Run runs the controller until ctx is done.
func (c *Controller) Run(ctx context.Context) error { return c.driver.Run(ctx) }

// Reconcile makes sure the namespace named key has its "default"
// ServiceAccount. Level-based: an active namespace without one (in the
// cache) gets it created; a namespace that is gone or being deleted, or
// that has one already, costs nothing.
func (c *Controller) Reconcile(ctx context.Context, key string) error {
	ns, err := c.namespaces.Get(key)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if ns.DeletionTimestamp != nil || ns.Status.Phase != corev1.NamespaceActive {
		return nil
	}
	if _, err := c.accounts.ServiceAccounts(key).Get(DefaultName); err == nil || !apierrors.IsNotFound(err) {
		return err
	}
	c.log.Info("reconcile", "namespace", key, "desired", "default ServiceAccount", "observed", "absent", "action", "create")
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: DefaultName, Namespace: key}}
	_, err = c.client.CoreV1().ServiceAccounts(key).Create(ctx, sa, metav1.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err):
		return nil // the cache is behind; a delete event brings us back
	case apierrors.IsForbidden(err):
		return nil // the namespace began terminating after the cache saw it
	}
	return err
}
