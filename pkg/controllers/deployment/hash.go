package deployment

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"

	"github.com/davecgh/go-spew/spew"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/rand"
)

// hashPrinter prints an object deterministically (sorted map keys, no
// String methods, pointers followed), as kube-controller-manager does before
// hashing, so miniapi names ReplicaSets exactly as a real cluster would.
var hashPrinter = spew.ConfigState{Indent: " ", SortKeys: true, DisableMethods: true, SpewKeys: true}

// podTemplateHash is the pod-template-hash of template: FNV-32a over the
// printed template, then the collision count (little-endian) if any,
// rendered as a decimal string through rand.SafeEncodeString (which maps
// to characters that cannot spell words). Bumping collisionCount yields a
// new name when a ReplicaSet with the old one exists but is not ours.
func podTemplateHash(template *corev1.PodTemplateSpec, collisionCount *int32) string {
	h := fnv.New32a()
	hashPrinter.Fprintf(h, "%#v", *template)
	if collisionCount != nil {
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], uint32(*collisionCount))
		_, _ = h.Write(b[:])
	}
	return rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
}
