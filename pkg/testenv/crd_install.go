package testenv

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
)

// installCRDs creates each CRD, or updates it if one of its name exists,
// and waits until every one is Established and each of its served
// versions lists its resource in discovery, so that a client may use the
// resources as soon as Start returns.
func installCRDs(ctx context.Context, cfg *rest.Config, crds []*apiextensionsv1.CustomResourceDefinition) error {
	if len(crds) == 0 {
		return nil
	}
	client, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	for _, crd := range crds {
		if err := createOrUpdateCRD(ctx, client.CustomResourceDefinitions(), crd); err != nil {
			return fmt.Errorf("installing CRD %s: %w", crd.Name, err)
		}
	}
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	return waitCRDsServed(ctx, client.CustomResourceDefinitions(), disco, crds)
}

type crdClient = apiextensionsclient.CustomResourceDefinitionInterface

func createOrUpdateCRD(ctx context.Context, client crdClient, crd *apiextensionsv1.CustomResourceDefinition) error {
	want := crd.DeepCopy()
	want.ResourceVersion = ""
	_, err := client.Create(ctx, want, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		have, err := client.Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		want.ResourceVersion = have.ResourceVersion
		_, err = client.Update(ctx, want, metav1.UpdateOptions{})
		return err
	})
}

// waitCRDsServed polls until every CRD is served, starting at 1ms (the
// server establishes a CRD within milliseconds) and backing off to 100ms
// (envtest's interval), until ctx ends.
func waitCRDsServed(ctx context.Context, client crdClient, disco discovery.DiscoveryInterface, crds []*apiextensionsv1.CustomResourceDefinition) error {
	waiting := slices.Clone(crds)
	interval := time.Millisecond
	for {
		var err error
		waiting, err = stillWaiting(ctx, client, disco, waiting)
		if len(waiting) == 0 {
			return nil
		}
		if rejected := (*rejectedError)(nil); errors.As(err, &rejected) {
			return err
		}
		timer := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			timer.Stop()
			return fmt.Errorf("CRD %s not served: %w (last: %v)", waiting[0].Name, ctx.Err(), err)
		case <-timer.C:
		}
		interval = min(2*interval, 100*time.Millisecond)
	}
}

// stillWaiting returns the CRDs of crds not yet served, and why the first
// of them is not (or why one never will be). It asks for the CRDs once
// and for each group version's discovery once.
func stillWaiting(ctx context.Context, client crdClient, disco discovery.DiscoveryInterface, crds []*apiextensionsv1.CustomResourceDefinition) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	list, err := client.List(ctx, metav1.ListOptions{})
	if err != nil {
		return crds, err
	}
	poll := &servedPoll{stored: map[string]*apiextensionsv1.CustomResourceDefinition{}, disco: disco, resources: map[string][]metav1.APIResource{}}
	for i := range list.Items {
		poll.stored[list.Items[i].Name] = &list.Items[i]
	}
	var waiting []*apiextensionsv1.CustomResourceDefinition
	var first error
	for _, crd := range crds {
		if err := poll.served(crd); err != nil {
			waiting = append(waiting, crd)
			var rejected *rejectedError
			if first == nil || errors.As(err, &rejected) {
				first = err // a rejection is what the caller must hear
			}
		}
	}
	return waiting, first
}

// servedPoll is one look at the server: the stored CRDs by name, and the
// resources of each group version asked for so far.
type servedPoll struct {
	stored    map[string]*apiextensionsv1.CustomResourceDefinition
	disco     discovery.DiscoveryInterface
	resources map[string][]metav1.APIResource
}

// served answers nil if crd is Established and discovery lists its
// plural in each version it serves.
func (p *servedPoll) served(crd *apiextensionsv1.CustomResourceDefinition) error {
	have, ok := p.stored[crd.Name]
	if !ok {
		return fmt.Errorf("CRD %s is not stored", crd.Name)
	}
	if c := condition(have, apiextensionsv1.NamesAccepted); c != nil && c.Status == apiextensionsv1.ConditionFalse {
		return &rejectedError{crd: crd.Name, reason: c.Reason, message: c.Message}
	}
	if c := condition(have, apiextensionsv1.Established); c == nil || c.Status != apiextensionsv1.ConditionTrue {
		return fmt.Errorf("CRD %s is not Established yet", crd.Name)
	}
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		gv := crd.Spec.Group + "/" + v.Name
		resources, err := p.discover(gv)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(resources, func(r metav1.APIResource) bool { return r.Name == crd.Spec.Names.Plural }) {
			return fmt.Errorf("discovery of %s does not list %s", gv, crd.Spec.Names.Plural)
		}
	}
	return nil
}

func (p *servedPoll) discover(gv string) ([]metav1.APIResource, error) {
	if resources, ok := p.resources[gv]; ok {
		return resources, nil
	}
	list, err := p.disco.ServerResourcesForGroupVersion(gv)
	if err != nil {
		return nil, err // not cached: a group version not served yet is asked again next poll
	}
	p.resources[gv] = list.APIResources
	return list.APIResources, nil
}

func condition(crd *apiextensionsv1.CustomResourceDefinition, t apiextensionsv1.CustomResourceDefinitionConditionType) *apiextensionsv1.CustomResourceDefinitionCondition {
	for i := range crd.Status.Conditions {
		if crd.Status.Conditions[i].Type == t {
			return &crd.Status.Conditions[i]
		}
	}
	return nil
}

// rejectedError is a CRD the server will not serve until it changes (its
// names clash with another's): waiting longer would not help.
type rejectedError struct{ crd, reason, message string }

func (e *rejectedError) Error() string {
	return fmt.Sprintf("CRD %s: names not accepted: %s: %s", e.crd, e.reason, e.message)
}
