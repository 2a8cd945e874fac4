package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
)

type apiResourcesOptions struct {
	Output     string
	APIGroup   string
	Namespaced bool
	Verbs      []string
	Categories []string
	SortBy     string
	NoHeaders  bool
	Cached     bool
}

func newAPIResourcesCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &apiResourcesOptions{Namespaced: true}
	cmd := &cobra.Command{
		Use:   "api-resources",
		Short: "Print the supported API resources on the server",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 0 {
				return UsageErrorf(cmd, "unexpected arguments: %v", args)
			}
			if o.SortBy != "" && o.SortBy != "name" && o.SortBy != "kind" {
				return fmt.Errorf("--sort-by accepts only name or kind")
			}
			if o.Output != "" && o.Output != "wide" && o.Output != "name" {
				return noCompatiblePrinterError(o.Output, []string{"name", "wide"})
			}
			resources, err := o.collect(f, cmd.Flags().Changed("api-group"), cmd.Flags().Changed("namespaced"))
			return o.print(streams, resources, err)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&o.Output, "output", "o", "", "Output format. One of: (wide, name).")
	fl.StringVar(&o.APIGroup, "api-group", "", "Limit to resources in the specified API group.")
	fl.BoolVar(&o.Namespaced, "namespaced", true, "If false, non-namespaced resources will be returned, otherwise returning namespaced resources by default.")
	fl.StringSliceVar(&o.Verbs, "verbs", nil, "Limit to resources that support the specified verbs.")
	fl.StringSliceVar(&o.Categories, "categories", nil, "Limit to resources that belong to the specified categories.")
	fl.StringVar(&o.SortBy, "sort-by", "", "If non-empty, sort list of resources using specified field. The field can be either 'name' or 'kind'.")
	fl.BoolVar(&o.NoHeaders, "no-headers", false, "When using the default or custom-column output format, don't print headers (default print headers).")
	fl.BoolVar(&o.Cached, "cached", false, "Use the cached list of resources if available.")
	return cmd
}

// collect reads the preferred version of every resource from discovery and
// filters it by the flags; subresources (no verbs) are left out.
func (o *apiResourcesOptions) collect(f *Factory, groupChanged, nsChanged bool) ([]metav1.APIResource, error) {
	d, err := f.Discovery()
	if err != nil {
		return nil, err
	}
	if !o.Cached {
		d.Invalidate()
	}
	lists, err := d.ServerPreferredResources()
	var out []metav1.APIResource
	for _, list := range lists {
		gv, perr := schema.ParseGroupVersion(list.GroupVersion)
		if perr != nil {
			continue
		}
		for _, r := range list.APIResources {
			switch {
			case len(r.Verbs) == 0,
				groupChanged && o.APIGroup != gv.Group,
				nsChanged && o.Namespaced != r.Namespaced,
				len(o.Verbs) > 0 && !sets.New(r.Verbs...).HasAll(o.Verbs...),
				len(o.Categories) > 0 && !sets.New(r.Categories...).HasAll(o.Categories...):
				continue
			}
			r.Group, r.Version = gv.Group, gv.Version
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Group, out[j].Group
		switch o.SortBy {
		case "name":
			a, b = out[i].Name, out[j].Name
		case "kind":
			a, b = out[i].Kind, out[j].Kind
		}
		if a != b {
			return a < b
		}
		return out[i].Name < out[j].Name
	})
	return out, err
}

func (o *apiResourcesOptions) print(streams genericiooptions.IOStreams, resources []metav1.APIResource, err error) error {
	errs := []error{}
	if err != nil {
		errs = append(errs, err)
	}
	if len(resources) == 0 {
		return utilerrors.NewAggregate(errs)
	}
	w := printers.GetNewTabWriter(streams.Out)
	if !o.NoHeaders && o.Output != "name" {
		h := []string{"NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"}
		if o.Output == "wide" {
			h = append(h, "VERBS", "CATEGORIES")
		}
		fmt.Fprintln(w, strings.Join(h, "\t"))
	}
	for _, r := range resources {
		gv := schema.GroupVersion{Group: r.Group, Version: r.Version}.String()
		switch o.Output {
		case "name":
			name := r.Name
			if r.Group != "" {
				name += "." + r.Group
			}
			fmt.Fprintln(w, name)
		case "wide":
			fmt.Fprintf(w, "%s\t%s\t%s\t%v\t%s\t%s\t%s\n", r.Name, strings.Join(r.ShortNames, ","), gv,
				r.Namespaced, r.Kind, strings.Join(r.Verbs, ","), strings.Join(r.Categories, ","))
		default:
			fmt.Fprintf(w, "%s\t%s\t%s\t%v\t%s\n", r.Name, strings.Join(r.ShortNames, ","), gv, r.Namespaced, r.Kind)
		}
	}
	if err := w.Flush(); err != nil {
		errs = append(errs, err)
	}
	return utilerrors.NewAggregate(errs)
}
