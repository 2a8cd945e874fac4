package allocator

import (
	"errors"
	"fmt"
)

// Error kinds. Test them with errors.Is; the errors returned carry
// kube-apiserver's own text, so a caller puts err.Error() into a field error
// unchanged.
var (
	// ErrAllocated: the requested value is taken.
	ErrAllocated = errors.New("allocator: value is already allocated")
	// ErrNotInRange: the requested value lies outside the range. The error
	// returned is a *NotInRangeError.
	ErrNotInRange = errors.New("allocator: value is not in the valid range")
	// ErrFull: AllocateNext found no free value. Its text is kube's.
	ErrFull = errors.New("range is full")
	// ErrRangeChanged: the store holds allocations made for another range
	// (the range flag changed). The error returned is a
	// *RangeChangedError; Repair moves the state to the new range.
	ErrRangeChanged = errors.New("allocator: range changed")
	// ErrContended: other writers kept changing the range's key, and the
	// update gave up after its bounded retries. Retrying the request is
	// safe.
	ErrContended = errors.New("allocator: too many concurrent updates")
)

// The "already allocated" errors, one per kind of range, with kube's text.
// Both match ErrAllocated.
var (
	ErrIPAllocated   error = &kindError{kind: ErrAllocated, text: "provided IP is already allocated"}
	ErrPortAllocated error = &kindError{kind: ErrAllocated, text: "provided port is already allocated"}
)

// How kube-apiserver's Service registry wraps these errors; use them with
// fmt.Sprintf to reproduce its answers (see the package documentation).
const (
	// ClusterIPErrorFormat takes the requested IP and the error from
	// IPRange.Allocate: a field.Invalid on spec.clusterIPs (422).
	ClusterIPErrorFormat = "failed to allocate IP %v: %v"
	// NextClusterIPErrorFormat takes the error from IPRange.AllocateNext:
	// an internal error (500).
	NextClusterIPErrorFormat = "failed to allocate a serviceIP: %v"
	// NextNodePortErrorFormat takes the error from PortRange.AllocateNext:
	// an internal error (500).
	NextNodePortErrorFormat = "failed to allocate a nodePort: %v"
)

// kindError is an error with kube's text that also matches a kind.
type kindError struct {
	kind error
	text string
}

func (e *kindError) Error() string { return e.text }
func (e *kindError) Unwrap() error { return e.kind }

// NotInRangeError says a requested value lies outside the range, in
// kube-apiserver's words. It matches ErrNotInRange.
type NotInRangeError struct {
	// Value is the value asked for, as text ("10.0.0.1", "20000").
	Value string
	// ValidRange is the range, as text ("10.96.0.0/12", "30000-32767").
	ValidRange string
	text       string
}

func notInRangeIP(ip, validRange string) *NotInRangeError {
	return &NotInRangeError{Value: ip, ValidRange: validRange, text: fmt.Sprintf(
		"the provided IP (%s) is not in the valid range. The range of valid IPs is %s", ip, validRange)}
}

func notInRangePort(port, validRange string) *NotInRangeError {
	return &NotInRangeError{Value: port, ValidRange: validRange, text: fmt.Sprintf(
		"provided port is not in the valid range. The range of valid ports is %s", validRange)}
}

func (e *NotInRangeError) Error() string { return e.text }
func (e *NotInRangeError) Unwrap() error { return ErrNotInRange }

// RangeChangedError says the key holds allocations for another range than
// the one configured. It matches ErrRangeChanged.
type RangeChangedError struct {
	Key        string
	Stored     string
	Configured string
}

func (e *RangeChangedError) Error() string {
	return fmt.Sprintf("allocator: %s holds allocations from range %s, but the configured range is %s; "+
		"Repair with the values in use moves them to the new range", e.Key, e.Stored, e.Configured)
}

func (e *RangeChangedError) Unwrap() error { return ErrRangeChanged }
