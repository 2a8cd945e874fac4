package crd

import (
	"fmt"
	"slices"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/sets"
)

// takenNames are the names already used in one group: resource names
// (plural, singular, short names) and kinds (kind, list kind).
type takenNames struct {
	resources, kinds sets.Set[string]
}

func newTakenNames() takenNames {
	return takenNames{resources: sets.New[string](), kinds: sets.New[string]()}
}

func (t takenNames) add(n apiextensionsv1.CustomResourceDefinitionNames) {
	t.resources.Insert(n.Plural, n.Singular)
	t.resources.Insert(n.ShortNames...)
	t.kinds.Insert(n.Kind, n.ListKind)
	t.resources.Delete("")
	t.kinds.Delete("")
}

// acceptNames decides which of crd's requested names it gets, given the
// names others hold in its group, and sets the NamesAccepted and
// Established conditions as kube-apiserver's naming and establishing
// controllers do. A name the CRD already holds stays its own. It reports
// whether the status changed.
func acceptNames(crd *apiextensionsv1.CustomResourceDefinition, taken takenNames) bool {
	before := crd.Status.DeepCopy()
	want, accepted := crd.Spec.Names, crd.Status.AcceptedNames
	names := accepted
	cond := apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionTrue,
		Reason: "NoConflicts", Message: "no conflicts found"}
	conflict := func(reason string, err error) {
		cond.Status, cond.Reason, cond.Message = apiextensionsv1.ConditionFalse, reason, err.Error()
	}
	if err := free(want.Plural, accepted.Plural, taken.resources); err != nil {
		conflict("PluralConflict", err)
	} else {
		names.Plural = want.Plural
	}
	if err := free(want.Singular, accepted.Singular, taken.resources); err != nil {
		conflict("SingularConflict", err)
	} else {
		names.Singular = want.Singular
	}
	if !slices.Equal(want.ShortNames, accepted.ShortNames) {
		var errs []error
		for _, s := range want.ShortNames {
			if !slices.Contains(accepted.ShortNames, s) {
				if err := free(s, "", taken.resources); err != nil {
					errs = append(errs, err)
				}
			}
		}
		if len(errs) > 0 {
			conflict("ShortNamesConflict", joinErrors(errs))
		} else {
			names.ShortNames = want.ShortNames
		}
	}
	if err := free(want.Kind, accepted.Kind, taken.kinds); err != nil {
		conflict("KindConflict", err)
	} else {
		names.Kind = want.Kind
	}
	if err := free(want.ListKind, accepted.ListKind, taken.kinds); err != nil {
		conflict("ListKindConflict", err)
	} else {
		names.ListKind = want.ListKind
	}
	names.Categories = want.Categories
	crd.Status.AcceptedNames = names
	apihelpers.SetCRDCondition(crd, cond)
	if !apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.Established) {
		established := apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse,
			Reason: "NotAccepted", Message: "not all names are accepted"}
		if cond.Status == apiextensionsv1.ConditionTrue {
			established.Status, established.Reason, established.Message = apiextensionsv1.ConditionTrue, "InitialNamesAccepted", "the initial names have been accepted"
		}
		apihelpers.SetCRDCondition(crd, established)
	}
	return !apiequality.Semantic.DeepEqual(before, &crd.Status)
}

// free: name may be used by this CRD, because it holds it already or
// nobody does.
func free(name, held string, taken sets.Set[string]) error {
	if name == held || !taken.Has(name) {
		return nil
	}
	return fmt.Errorf("%q is already in use", name)
}

// joinErrors joins messages as kube's aggregate errors print them.
func joinErrors(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	msg := "["
	for i, e := range errs {
		if i > 0 {
			msg += ", "
		}
		msg += e.Error()
	}
	return fmt.Errorf("%s]", msg)
}
