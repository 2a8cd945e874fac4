package kubelet

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

func TestIPPoolUniqueStableAndReused(t *testing.T) {
	var p ipPool
	existing := func() []heldIP {
		return []heldIP{{uid: "old", ip: "10.244.0.1"}, {uid: "elsewhere", ip: "192.168.0.1"}}
	}
	seen := map[string]bool{"10.244.0.1": true}
	// A /29 has 6 usable addresses; one is held already.
	for i := range 5 {
		ip, err := p.allocate("n1", "10.244.0.0/29", types.UID(fmt.Sprint(i)), existing)
		if err != nil {
			t.Fatal(err)
		}
		if seen[ip] {
			t.Fatalf("address %s handed out twice", ip)
		}
		seen[ip] = true
	}
	if again, _ := p.allocate("n1", "10.244.0.0/29", "0", existing); again != "10.244.0.2" {
		t.Errorf("same pod got %s on a second call, want its first address 10.244.0.2", again)
	}
	if _, err := p.allocate("n1", "10.244.0.0/29", "full", existing); err == nil {
		t.Error("allocation from a full range succeeded")
	}
	p.release("3")
	ip, err := p.allocate("n1", "10.244.0.0/29", "new", existing)
	if err != nil || ip != "10.244.0.5" {
		t.Errorf("after release got %q, %v; want the freed 10.244.0.5", ip, err)
	}
	if _, err := p.allocate("n2", "bogus", "x", existing); err == nil {
		t.Error("a node without a valid podCIDR got an address")
	}
}
