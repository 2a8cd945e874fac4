package statefulset

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
)

// maxCollisions bounds how many names a new revision tries; kube tries
// forever, but past a few a name clash is a bug, not bad luck.
const maxCollisions = 16

// history is what a reconcile knows of a set's revisions.
type history struct {
	own        []*appsv1.ControllerRevision // oldest first
	current    *appsv1.ControllerRevision   // status.currentRevision, or update when there is none yet
	update     *appsv1.ControllerRevision   // the revision of the template now in the spec
	collisions int32                        // status.collisionCount after any clash
}

// historyOf settles s's revisions as kube's getStatefulSetRevisions does:
// the template's revision is the newest one if its data is unchanged, an
// older one with equal data renumbered to the top (a rollback), or a new
// one (named with a higher collision count on a name clash).
func (c *Controller) historyOf(ctx context.Context, s *appsv1.StatefulSet) (*history, error) {
	own, err := c.ownRevisions(ctx, s)
	if err != nil {
		return nil, err
	}
	h := &history{own: own}
	if s.Status.CollisionCount != nil {
		h.collisions = *s.Status.CollisionCount
	}
	data, err := revisionData(s)
	if err != nil {
		return nil, err
	}
	next := int64(1)
	if len(own) > 0 {
		next = own[len(own)-1].Revision + 1
	}
	want := newRevision(s, data, next, h.collisions)
	var equal []*appsv1.ControllerRevision
	for _, r := range own {
		if equalRevisions(r, want) {
			equal = append(equal, r)
		}
	}
	switch {
	case len(equal) > 0 && equal[len(equal)-1] == own[len(own)-1]:
		h.update = own[len(own)-1]
	case len(equal) > 0:
		h.update, err = c.renumber(ctx, equal[len(equal)-1], next)
	default:
		h.update, err = c.createRevision(ctx, s, want, &h.collisions)
	}
	if err != nil {
		return nil, err
	}
	h.current = h.update
	for _, r := range own {
		if r.Name == s.Status.CurrentRevision {
			h.current = r
			break
		}
	}
	return h, nil
}

// ownRevisions lists the revisions matching s's selector that s controls,
// adopting the orphans among them; oldest first.
func (c *Controller) ownRevisions(ctx context.Context, s *appsv1.StatefulSet) ([]*appsv1.ControllerRevision, error) {
	sel, err := metav1.LabelSelectorAsSelector(s.Spec.Selector)
	if err != nil {
		return nil, err
	}
	all, err := c.revLister.ControllerRevisions(s.Namespace).List(sel)
	if err != nil {
		return nil, err
	}
	var own []*appsv1.ControllerRevision
	for _, r := range all {
		switch ref := metav1.GetControllerOf(r); {
		case ref == nil:
			adopted, err := c.client.AppsV1().ControllerRevisions(s.Namespace).Patch(ctx, r.Name,
				types.StrategicMergePatchType, owner.AdoptPatch(s, setKind, r.UID), metav1.PatchOptions{})
			if err != nil {
				return nil, fmt.Errorf("adopting controllerrevision %s: %w", r.Name, err)
			}
			own = append(own, adopted)
		case ref.UID == s.UID:
			own = append(own, r)
		}
	}
	sort.SliceStable(own, func(i, j int) bool { return olderRevision(own[i], own[j]) })
	return own, nil
}

// olderRevision orders by number, then creation time, then name.
func olderRevision(a, b *appsv1.ControllerRevision) bool {
	if a.Revision != b.Revision {
		return a.Revision < b.Revision
	}
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.Name < b.Name
}

// equalRevisions: same data, unless both carry decimal hash labels that
// differ (kube's EqualRevision).
func equalRevisions(a, b *appsv1.ControllerRevision) bool {
	ha, errA := strconv.ParseInt(a.Labels[hashLabel], 10, 32)
	hb, errB := strconv.ParseInt(b.Labels[hashLabel], 10, 32)
	if errA == nil && errB == nil && ha != hb {
		return false
	}
	return bytes.Equal(a.Data.Raw, b.Data.Raw)
}

// renumber makes r the newest revision, number next.
func (c *Controller) renumber(ctx context.Context, r *appsv1.ControllerRevision, next int64) (*appsv1.ControllerRevision, error) {
	upd := r.DeepCopy()
	upd.Revision = next
	return c.client.AppsV1().ControllerRevisions(r.Namespace).Update(ctx, upd, metav1.UpdateOptions{})
}

// createRevision creates rev. When its name is taken by a revision with
// other data, it counts a collision and tries the next name; the hash
// label keeps the first hash, as in kube. A name taken by equal data is
// that revision (our cache was behind).
func (c *Controller) createRevision(ctx context.Context, s *appsv1.StatefulSet, rev *appsv1.ControllerRevision, collisions *int32) (*appsv1.ControllerRevision, error) {
	crs := c.client.AppsV1().ControllerRevisions(s.Namespace)
	for range maxCollisions {
		rev.Name = revisionName(s, revisionHash(rev.Data.Raw, *collisions))
		created, err := crs.Create(ctx, rev, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			return created, err
		}
		existing, err := crs.Get(ctx, rev.Name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		if bytes.Equal(existing.Data.Raw, rev.Data.Raw) {
			return existing, nil
		}
		*collisions++
	}
	return nil, fmt.Errorf("controllerrevision for statefulset %s: %d name collisions", s.Name, maxCollisions)
}

// truncateHistory deletes the oldest revisions that no pod runs and that
// are neither current nor update, beyond revisionHistoryLimit.
func (c *Controller) truncateHistory(ctx context.Context, s *appsv1.StatefulSet, h *history, podRevisions map[string]bool) error {
	limit := 10
	if s.Spec.RevisionHistoryLimit != nil {
		limit = int(*s.Spec.RevisionHistoryLimit)
	}
	var old []*appsv1.ControllerRevision
	for _, r := range h.own {
		if r.Name != h.current.Name && r.Name != h.update.Name && !podRevisions[r.Name] {
			old = append(old, r)
		}
	}
	for i := 0; i < len(old)-limit; i++ {
		err := c.client.AppsV1().ControllerRevisions(s.Namespace).Delete(ctx, old[i].Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}
