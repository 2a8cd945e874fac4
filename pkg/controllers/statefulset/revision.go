package statefulset

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
)

// hashLabel is the label a ControllerRevision carries with the hash of its
// data (the pods carry the revision's name under revisionLabel instead).
const hashLabel = "controller.kubernetes.io/hash"

// maxPrefix keeps "<set>-<hash>" within a name's 253 bytes, as kube does.
const maxPrefix = 223

// revisionData is what a ControllerRevision of s records: the template,
// as a strategic merge patch that replaces it (kube's form). Keys come out
// sorted, so equal templates give equal bytes.
func revisionData(s *appsv1.StatefulSet) ([]byte, error) {
	var tmpl map[string]any
	b, err := json.Marshal(s.Spec.Template)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &tmpl); err != nil {
		return nil, err
	}
	tmpl["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": tmpl}})
}

// revisionHash is kube's ControllerRevision hash: 32-bit FNV-1 (not 1a)
// over the data followed by the decimal collision count, printed in
// decimal and re-encoded without vowels.
func revisionHash(data []byte, collisions int32) string {
	h := fnv.New32()
	h.Write(data)
	h.Write([]byte(strconv.FormatInt(int64(collisions), 10)))
	return rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
}

// revisionName is "<set>-<hash>", the revision's name and the value of
// its pods' controller-revision-hash label.
func revisionName(s *appsv1.StatefulSet, hash string) string {
	prefix := s.Name
	if len(prefix) > maxPrefix {
		prefix = prefix[:maxPrefix]
	}
	return prefix + "-" + hash
}

// newRevision builds the ControllerRevision numbered number for s's
// template: the template's labels plus the hash label, the set's
// annotations, and s as controller.
func newRevision(s *appsv1.StatefulSet, data []byte, number int64, collisions int32) *appsv1.ControllerRevision {
	hash := revisionHash(data, collisions)
	labels := map[string]string{}
	for k, v := range s.Spec.Template.Labels {
		labels[k] = v
	}
	labels[hashLabel] = hash
	annotations := map[string]string{}
	for k, v := range s.Annotations {
		annotations[k] = v
	}
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name: revisionName(s, hash), Namespace: s.Namespace, Labels: labels, Annotations: annotations,
			OwnerReferences: []metav1.OwnerReference{owner.ControllerRef(s, setKind)},
		},
		Data:     runtime.RawExtension{Raw: data},
		Revision: number,
	}
}

// atRevision returns s with the template rev recorded, by applying rev's
// patch to s as kube's ApplyRevision does; the rest of s is unchanged.
func atRevision(s *appsv1.StatefulSet, rev *appsv1.ControllerRevision) (*appsv1.StatefulSet, error) {
	orig, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	patched, err := strategicpatch.StrategicMergePatch(orig, rev.Data.Raw, &appsv1.StatefulSet{})
	if err != nil {
		return nil, fmt.Errorf("applying revision %s: %w", rev.Name, err)
	}
	out := &appsv1.StatefulSet{}
	if err := json.Unmarshal(patched, out); err != nil {
		return nil, fmt.Errorf("applying revision %s: %w", rev.Name, err)
	}
	return out, nil
}
