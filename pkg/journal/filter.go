package journal

import "strings"

// Filter selects passes. Its zero value selects every pass.
type Filter struct {
	// Namespace, when set, keeps the passes over objects in it.
	Namespace string
	// Kind and Name, when set, keep the passes over that object or over
	// its children: the objects whose recorded controller owner it is (a
	// Deployment's ReplicaSets). Kind matches case-insensitively.
	Kind, Name string
}

// Match says whether f selects the pass recorded as r.
func (f Filter) Match(r *Record) bool {
	if f.Namespace != "" && r.Object.Namespace != f.Namespace {
		return false
	}
	if f.Kind == "" && f.Name == "" {
		return true
	}
	return f.names(r.Object) || (r.Owner.Kind != "" && f.names(r.Owner))
}

func (f Filter) names(o Ref) bool {
	return (f.Kind == "" || strings.EqualFold(o.Kind, f.Kind)) && (f.Name == "" || o.Name == f.Name)
}
