package apiserver

import (
	"math"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// parseResourceVersion reads a request's resourceVersion parameter: "" and
// "0" are 0 (any revision), anything else must be a revision. kube-apiserver
// reports a malformed one with this message, as a 500 out of its storage
// layer; it is the client's mistake, so miniapi answers 400.
func parseResourceVersion(rv string) (int64, error) {
	if rv == "" || rv == "0" {
		return 0, nil
	}
	n, err := strconv.ParseUint(rv, 10, 64)
	if err == nil && n > math.MaxInt64 {
		err = strconv.ErrRange
	}
	if err != nil {
		invalid := field.ErrorList{field.Invalid(field.NewPath("resourceVersion"), rv, err.Error())}
		return 0, apierrors.NewBadRequest(invalid.ToAggregate().Error())
	}
	return int64(n), nil
}
