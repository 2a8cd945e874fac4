// Package negotiation picks the media type of an answer from the request's
// Accept header, and writes the Status of a failed request, the same way
// for every path the server serves: API resources, discovery and OpenAPI.
//
// Basics: the Accept header is parsed by goautoneg, as kube-apiserver
// parses it, so its clauses are tried by q-value, the more specific first
// on equal q-values (application/json before application/*, before */*).
// Within one clause the path's offers are tried in the server's order of
// preference. A clause may ask for a conversion (as=Table;g=meta.k8s.io;
// v=v1); each path says which conversions it can make, and a clause it
// cannot serve is skipped. An empty Accept gets the first offer.
//
// Caveats: goautoneg's order is kube-apiserver's, quirks included. As
// there, q=0 does not refuse a type, it only makes it the least preferred;
// and its sort puts a clause with a named type before */* whatever their
// q-values when the named one comes later in the header. Clauses goautoneg cannot parse (no
// subtype) are ignored, so an Accept of only malformed clauses is 406.
package negotiation

import (
	"net/http"
	"strings"

	"github.com/munnerz/goautoneg"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Allows reports whether a path can answer in offer with the conversion a
// clause asks for; convert is nil for a clause that asks for none.
type Allows func(offer runtime.SerializerInfo, convert *schema.GroupVersionKind) bool

// NoConversion allows every offer, but no conversion: a path that serves
// only its own documents.
func NoConversion(_ runtime.SerializerInfo, convert *schema.GroupVersionKind) bool {
	return convert == nil
}

// Result is the negotiated answer: the offer chosen and the conversion
// its clause asked for (nil for none).
type Result struct {
	Offer   runtime.SerializerInfo
	Convert *schema.GroupVersionKind
}

// MediaType picks the offer for an Accept header, or returns the 406
// Status error that lists the offers.
func MediaType(accept string, offers []runtime.SerializerInfo, allows Allows) (Result, error) {
	if strings.TrimSpace(accept) == "" && len(offers) > 0 {
		return Result{Offer: offers[0]}, nil
	}
	for _, clause := range goautoneg.ParseAccept(accept) {
		convert := conversion(clause.Params)
		for _, offer := range offers {
			if matches(clause, offer) && allows(offer, convert) {
				return Result{Offer: offer, Convert: convert}, nil
			}
		}
	}
	return Result{}, NotAcceptable(offers)
}

// matches: the clause names the offer's type, or its type with any
// subtype, or anything.
func matches(clause goautoneg.Accept, offer runtime.SerializerInfo) bool {
	typ, sub := offer.MediaTypeType, offer.MediaTypeSubType
	if typ == "" {
		typ, sub, _ = strings.Cut(offer.MediaType, "/")
	}
	switch {
	case clause.Type == "*" && clause.SubType == "*":
		return true
	case clause.Type != typ:
		return false
	}
	return clause.SubType == "*" || clause.SubType == sub
}

// conversion is the kind a clause's g, v and as parameters ask for, nil
// when it names none of them.
func conversion(params map[string]string) *schema.GroupVersionKind {
	g, gok := params["g"]
	v, vok := params["v"]
	as, asok := params["as"]
	if !gok && !vok && !asok {
		return nil
	}
	return &schema.GroupVersionKind{Group: g, Version: v, Kind: as}
}

// Offers turns media types into offers, for paths whose documents are
// not encoded by a runtime serializer.
func Offers(mediaTypes ...string) []runtime.SerializerInfo {
	offers := make([]runtime.SerializerInfo, 0, len(mediaTypes))
	for _, mt := range mediaTypes {
		typ, sub, _ := strings.Cut(mt, "/")
		offers = append(offers, runtime.SerializerInfo{MediaType: mt, MediaTypeType: typ, MediaTypeSubType: sub})
	}
	return offers
}

// NotAcceptable is kube-apiserver's 406 for an Accept header that names
// none of offers.
func NotAcceptable(offers []runtime.SerializerInfo) error {
	types := make([]string, 0, len(offers))
	for _, o := range offers {
		types = append(types, o.MediaType)
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusNotAcceptable, Reason: metav1.StatusReasonNotAcceptable,
		Message: "only the following media types are accepted: " + strings.Join(types, ", "),
	}}
}
