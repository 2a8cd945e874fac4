package negotiation

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// tablesInJSON allows plain answers in every offer and a meta.k8s.io/v1
// Table in JSON only, like a resource path.
func tablesInJSON(offer runtime.SerializerInfo, convert *schema.GroupVersionKind) bool {
	if convert == nil {
		return true
	}
	return offer.MediaType == "application/json" && *convert == schema.GroupVersionKind{Group: "meta.k8s.io", Version: "v1", Kind: "Table"}
}

func TestMediaType(t *testing.T) {
	offers := scheme.Codecs.SupportedMediaTypes() // JSON, YAML, protobuf
	const pb = "application/vnd.kubernetes.protobuf"
	cases := []struct {
		name, accept, want string
		table              bool
	}{
		{"empty is the first offer", "", "application/json", false},
		{"blank is the first offer", "  ", "application/json", false},
		{"anything", "*/*", "application/json", false},
		{"any application type", "application/*", "application/json", false},
		{"q-value beats order", "application/json;q=0.5, application/yaml", "application/yaml", false},
		{"q-value beats order with spaces", "application/json; q=0.5,application/yaml; q=0.9", "application/yaml", false},
		{"order on equal q-values", "application/yaml, application/json", "application/yaml", false},
		{"specific before wildcard on a tie", "*/*, application/yaml", "application/yaml", false},
		{"wildcard with the higher q", "application/yaml;q=0.1, */*", "application/json", false},
		{"protobuf first", pb + ", application/json", pb, false},
		{"q=0 is least preferred", "application/json;q=0, application/yaml", "application/yaml", false},
		{"q=0 alone is still served, as by kube-apiserver", "application/yaml;q=0", "application/yaml", false},
		{"malformed clause skipped", "application, application/yaml", "application/yaml", false},
		{"unknown clause skipped", "text/html, application/yaml;q=0.2", "application/yaml", false},
		{"table", "application/json;as=Table;v=v1;g=meta.k8s.io, application/json", "application/json", true},
		{"table not in yaml: next clause", "application/yaml;as=Table;v=v1;g=meta.k8s.io, application/yaml", "application/yaml", false},
		{"table v1beta1 not allowed: fallback", "application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json", "application/json", false},
		{"table with a lower q loses", "application/json;as=Table;v=v1;g=meta.k8s.io;q=0.5, application/yaml", "application/yaml", false},
		{"table with a higher q wins", "application/yaml;q=0.5, application/json;as=Table;v=v1;g=meta.k8s.io", "application/json", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := MediaType(c.accept, offers, tablesInJSON)
			if err != nil {
				t.Fatalf("%q: %v", c.accept, err)
			}
			if got.Offer.MediaType != c.want || (got.Convert != nil) != c.table {
				t.Errorf("%q: got %s convert %v, want %s table %v", c.accept, got.Offer.MediaType, got.Convert, c.want, c.table)
			}
			if c.table && got.Convert.Kind != "Table" {
				t.Errorf("%q: convert %v", c.accept, got.Convert)
			}
		})
	}
}

func TestMediaTypeNotAcceptable(t *testing.T) {
	offers := scheme.Codecs.SupportedMediaTypes()
	for _, accept := range []string{
		"text/html",
		"text/*",
		"application",        // no subtype: not a clause
		"/json",              // no type
		"application/json/x", // two slashes
		"application/json;as=Table;g=meta.k8s.io;v=v2", // a conversion no offer can make
		"application/json;as=APIGroupDiscoveryList;g=apidiscovery.k8s.io;v=v2",
	} {
		_, err := MediaType(accept, offers, tablesInJSON)
		var st apierrors.APIStatus
		if !errors.As(err, &st) {
			t.Errorf("%q: %v, want a Status error", accept, err)
			continue
		}
		s := st.Status()
		const msg = "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf"
		if s.Code != http.StatusNotAcceptable || s.Reason != metav1.StatusReasonNotAcceptable || s.Message != msg {
			t.Errorf("%q: %d %s %q", accept, s.Code, s.Reason, s.Message)
		}
	}
}

func TestWildcardSpecificity(t *testing.T) {
	offers := Offers("text/plain", "application/yaml")
	for accept, want := range map[string]string{
		"*/*;q=0.8, application/*;q=0.8": "application/yaml", // type/* before */* on a tie
		"text/*;q=0.1, application/*":    "application/yaml",
		"application/*;q=0.1, text/*":    "text/plain",
	} {
		got, err := MediaType(accept, offers, NoConversion)
		if err != nil || got.Offer.MediaType != want {
			t.Errorf("%q: %s %v, want %s", accept, got.Offer.MediaType, err, want)
		}
	}
}

func TestNoConversionAndOffers(t *testing.T) {
	offers := Offers("application/json", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
	got, err := MediaType("application/com.github.proto-openapi.spec.v2@v1.0+protobuf, application/json;q=0.9", offers, NoConversion)
	if err != nil || got.Offer.MediaType != offers[1].MediaType {
		t.Errorf("protobuf first: %v %v", got.Offer.MediaType, err)
	}
	if _, err := MediaType("application/json;as=Table;g=meta.k8s.io;v=v1", offers, NoConversion); err == nil {
		t.Error("a conversion was allowed")
	}
	if _, err := MediaType("application/yaml", offers, NoConversion); err == nil ||
		!strings.HasSuffix(err.Error(), "accepted: application/json, application/com.github.proto-openapi.spec.v2@v1.0+protobuf") {
		t.Errorf("yaml: %v", err)
	}
}

func TestWriteStatus(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteStatus(rec, metav1.Status{Status: metav1.StatusFailure, Code: 406, Reason: metav1.StatusReasonNotAcceptable, Message: "no"}, false)
	const want = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"no","reason":"NotAcceptable","code":406}` + "\n"
	if rec.Code != 406 || rec.Header().Get("Content-Type") != "application/json" || rec.Body.String() != want {
		t.Errorf("%d %q %q", rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
	}
	rec = httptest.NewRecorder()
	WriteStatus(rec, metav1.Status{Message: "boom"}, true)
	if rec.Code != 500 || !strings.HasPrefix(rec.Body.String(), "{\n  \"kind\": \"Status\",") {
		t.Errorf("pretty, no code: %d %q", rec.Code, rec.Body.String())
	}
}

func TestPretty(t *testing.T) {
	for _, c := range []struct {
		ua, query string
		want      bool
	}{{"curl/8.0", "", true}, {"kubectl/v1.37", "", false}, {"kubectl/v1.37", "?pretty=true", true}} {
		r := httptest.NewRequest("GET", "/api"+c.query, nil)
		r.Header.Set("User-Agent", c.ua)
		if Pretty(r) != c.want {
			t.Errorf("%s %s: %v", c.ua, c.query, !c.want)
		}
	}
}
