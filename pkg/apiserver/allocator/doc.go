/*
Package allocator hands out Service ClusterIPs and NodePorts as
kube-apiserver does, and keeps what it handed out in the store: allocations
survive restarts, and servers sharing one store never hand out a value
twice.

# Basics

A range is made from its flag's value and a store key of its own:

	ips, err := allocator.NewIPRange(store, "/ranges/serviceips", "10.96.0.0/12")
	ports, err := allocator.NewPortRange(store, "/ranges/servicenodeports", "30000-32767")

Object keys start with /<group>/<resource>/, so keys under /ranges/ never
collide with them. The constructors read nothing; each operation takes a
context and reads the key afresh.

	err := ips.Allocate(ctx, netip.MustParseAddr("10.96.0.10")) // a requested ClusterIP
	ip, err := ips.AllocateNext(ctx)                            // any free one
	err = ips.Release(ctx, ip)
	taken, err := ports.Has(ctx, 30080)

AllocateNext picks as kube-apiserver does: from a random start, scanning up
and wrapping, first above a low band of the range (16 to 256 addresses, 16 to
128 ports) that is kept for requested values, and within the band only when
the rest is full. An IPRange never hands out the network address, nor, for
IPv4, the broadcast address; IPv6 has no broadcast address, so its last
address is used. First is the first usable address (10.96.0.1): the
default/kubernetes Service's ClusterIP, allocated with Allocate like any
requested value.

A Service registry allocates before it stores the Service, releases what it
allocated when that write fails, and on update or delete releases old values
only after the write succeeded. A crash between the two steps can leak a
value but never give one to two Services. At start, before serving, the
server calls Repair with the values of every stored Service (ClusterIPs
except "None"; nodePorts and healthCheckNodePorts): the state becomes exactly
those values, leaks are freed, and the report says what was found.

Each range is one key whose value is JSON:

	{"range":"10.96.0.0/12","count":3,"encoding":"uvarint-deltas","offsets":"<base64>"}

range is the range the offsets count in; offsets lists the allocated values'
positions in ascending order, each as the uvarint of its distance from the
one before. Unlike kube's RangeAllocation bitmap, its size follows the number
of values allocated rather than the size of the range: 10000 Services in a
/12 take about 17 KB where a bitmap takes 128 KiB, and the store keeps every
write of the key, old and new value, in its watch history.

Every change reads the key, changes a copy of the set and writes it with a
compare-and-swap on the key's ModRevision. When another writer got there
first, it reads again and retries, at most 64 times, then fails with
ErrContended. Within one process, operations on one range wait for each
other on a lock instead of racing in the store, so conflicts come only from
other servers. The decoded set is kept between operations and decoded again
only when another writer changed the key.

# Errors

The errors carry kube-apiserver's words; kube's Service registry wraps them
as follows, and a caller reproduces its answers the same way:

  - A requested ClusterIP taken (ErrIPAllocated) or outside the range
    (*NotInRangeError): 422, field.Invalid at spec.clusterIPs with the
    Service's clusterIPs as value and fmt.Sprintf(ClusterIPErrorFormat, ip,
    err) as detail: "failed to allocate IP 10.96.5.5: the provided IP
    (10.96.5.5) is not in the valid range. The range of valid IPs is
    10.96.0.0/24".
  - A requested nodePort taken (ErrPortAllocated) or outside the range:
    422, field.Invalid at spec.ports[i].nodePort with the port as value and
    err.Error() as detail: "provided port is already allocated".
  - AllocateNext on a full range (ErrFull, "range is full"): 500, an
    internal error with fmt.Sprintf(NextClusterIPErrorFormat, err) or
    NextNodePortErrorFormat.
  - Dry run: kube checks a requested ClusterIP against the range only
    (Validate) and a requested nodePort against the allocations only (Has):
    `kubectl create service nodeport --node-port=20000 --dry-run=server`
    succeeds on kube-apiserver 1.37, and fails without the dry run.

# Caveats

When the range flag changes, the stored record no longer fits: every
operation fails with a *RangeChangedError until Repair rewrites the record
for the new range. Values in use outside the new range are reported, not
recorded; the Services keep them, as in kube-apiserver.

Repair with ReleaseUnused replaces the state wholesale, which is right for
one server at start. With several servers on one store, a Repair could free
a value that another server has just allocated for a Service it has not
stored yet, so there Repair is called with KeepUnused: it adds what is
missing and frees nothing. kube's repair loop frees a leak only after
several passes found it leaked; miniapi has no such loop, so on a shared
store a value leaked by a crash stays allocated.

A range holds at most 2^20 values: an IPv4 range up to a /12 (as
kube-apiserver's flag allowed), an IPv6 range up to a /108 (kube 1.37 takes
prefixes up to /64, as it tracks addresses as IPAddress objects). The set is
held in memory as a bitmap of the range (128 KiB for a /12), copied by every
change. One IPRange serves one IP family; dual stack would be two ranges on
two keys.

Release and Has of a value outside the range do nothing and answer false,
as in kube-apiserver. AllocateNext has no dry-run form: kube answers a dry
run with placeholder values, and so can the caller.
*/
package allocator
