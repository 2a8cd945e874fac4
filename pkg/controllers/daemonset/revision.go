package daemonset

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/rand"

	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
)

// The labels a daemon pod carries besides its template's.
const (
	hashLabel       = appsv1.ControllerRevisionHashLabelKey // "controller-revision-hash"
	generationLabel = "pod-template-generation"
	// generationAnnotation is where apps/v1 keeps the template generation.
	generationAnnotation = "deprecated.daemonset.template.generation"
)

// revisionData is what a DaemonSet's ControllerRevision holds, as kube
// writes it: a patch that replaces the template.
func revisionData(ds *appsv1.DaemonSet) ([]byte, error) {
	tmpl := map[string]any{}
	raw, err := json.Marshal(ds.Spec.Template)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &tmpl); err != nil {
		return nil, err
	}
	tmpl["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": tmpl}})
}

// templateHash names a template: FNV-32a of its data, encoded as kube
// encodes hashes (no vowels, so no words).
func templateHash(data []byte, collisions int32) string {
	h := fnv.New32a()
	h.Write(data)
	if collisions > 0 {
		fmt.Fprintf(h, "%d", collisions)
	}
	return rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
}

// ownRevisions lists ds's ControllerRevisions, oldest revision first.
func (c *Controller) ownRevisions(ds *appsv1.DaemonSet) ([]*appsv1.ControllerRevision, error) {
	all, err := c.revLister.ControllerRevisions(ds.Namespace).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var own []*appsv1.ControllerRevision
	for _, r := range all {
		if owner.IsControlledBy(r, ds.UID) {
			own = append(own, r)
		}
	}
	sort.Slice(own, func(i, j int) bool { return own[i].Revision < own[j].Revision })
	return own, nil
}

// currentRevision finds or makes the revision of ds's template and makes
// it the newest, returning its hash. A template seen before (a rollback)
// gets its old revision renumbered, as in kube.
func (c *Controller) currentRevision(ctx context.Context, ds *appsv1.DaemonSet, own []*appsv1.ControllerRevision) (string, error) {
	data, err := revisionData(ds)
	if err != nil {
		return "", err
	}
	hash := templateHash(data, 0)
	var maxRev int64
	for _, r := range own {
		maxRev = max(maxRev, r.Revision)
	}
	for _, r := range own {
		if r.Labels[hashLabel] != hash {
			continue
		}
		if r.Revision < maxRev {
			upd := r.DeepCopy()
			upd.Revision = maxRev + 1
			if _, err := c.client.AppsV1().ControllerRevisions(ds.Namespace).Update(ctx, upd, metav1.UpdateOptions{}); err != nil {
				return "", err
			}
		}
		return hash, nil
	}
	labelsCopy := map[string]string{hashLabel: hash}
	for k, v := range ds.Spec.Template.Labels {
		labelsCopy[k] = v
	}
	rev := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name: ds.Name + "-" + hash, Namespace: ds.Namespace, Labels: labelsCopy,
			OwnerReferences: []metav1.OwnerReference{owner.ControllerRef(ds, controllerKind)},
		},
		Data:     runtime.RawExtension{Raw: data},
		Revision: maxRev + 1,
	}
	_, err = c.client.AppsV1().ControllerRevisions(ds.Namespace).Create(ctx, rev, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		// Ours but not yet in the cache: the next reconcile sees it.
		return hash, nil
	}
	return hash, err
}

// trimHistory deletes the oldest revisions beyond revisionHistoryLimit
// that no live pod still runs.
func (c *Controller) trimHistory(ctx context.Context, ds *appsv1.DaemonSet, own []*appsv1.ControllerRevision, current string, inUse map[string]bool) error {
	limit := 10
	if ds.Spec.RevisionHistoryLimit != nil {
		limit = int(*ds.Spec.RevisionHistoryLimit)
	}
	var old []*appsv1.ControllerRevision
	for _, r := range own {
		if h := r.Labels[hashLabel]; h != current && !inUse[h] {
			old = append(old, r)
		}
	}
	for i := 0; i < len(old)-limit; i++ {
		err := c.client.AppsV1().ControllerRevisions(ds.Namespace).Delete(ctx, old[i].Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}
