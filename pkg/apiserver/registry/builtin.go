package registry

// Builtin returns the built-in resources, core group first, in the order
// discovery lists their groups. Each call returns new values, so every
// server has its own.
func Builtin() []*Resource {
	return []*Resource{
		namespaces(),
		nodes(),
		pods(),
		events(),
		replicaSets(),
		deployments(),
	}
}

// NewBuiltin returns a registry of the built-in resources.
func NewBuiltin() *Registry {
	r, err := New(Builtin()...)
	if err != nil {
		// The built-in table is static: its own tests catch this.
		panic(err)
	}
	return r
}
