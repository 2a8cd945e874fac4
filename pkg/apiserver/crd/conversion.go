package crd

import (
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// conversionErrors checks spec.conversion. miniapi serves every version of a
// custom resource from the same stored JSON, changing only apiVersion (kube's
// strategy None), and never calls a conversion webhook, so it refuses the
// strategy Webhook that kube-apiserver would accept with a webhook configured.
// Any other strategy gets kube's own message.
func conversionErrors(spec *apiextensions.CustomResourceDefinitionSpec, path *field.Path) field.ErrorList {
	c := spec.Conversion
	if c == nil {
		return nil
	}
	strategyPath := path.Child("strategy")
	var errs field.ErrorList
	if c.Strategy != apiextensions.NoneConverter && preservesUnknownFields(spec) {
		errs = append(errs, field.Invalid(strategyPath, c.Strategy, "must be None if spec.preserveUnknownFields is true"))
	}
	switch c.Strategy {
	case apiextensions.NoneConverter:
		if c.WebhookClientConfig != nil {
			errs = append(errs, field.Forbidden(path.Child("webhookClientConfig"), "should not be set when strategy is not set to Webhook"))
		}
		if len(c.ConversionReviewVersions) > 0 {
			errs = append(errs, field.Forbidden(path.Child("conversionReviewVersions"), "should not be set when strategy is not set to Webhook"))
		}
	case apiextensions.WebhookConverter:
		errs = append(errs, field.NotSupported(strategyPath, c.Strategy, []apiextensions.ConversionStrategyType{apiextensions.NoneConverter}))
	default:
		errs = append(errs, oneOf(strategyPath, string(c.Strategy), []string{string(apiextensions.NoneConverter), string(apiextensions.WebhookConverter)})...)
	}
	return errs
}
