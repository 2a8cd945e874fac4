package cli

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
)

// dataSources are the --from-* flags of create configmap and secret.
type dataSources struct {
	Literals []string
	Files    []string
	EnvFiles []string
}

func (d *dataSources) add(cmd *cobra.Command, what string) {
	cmd.Flags().StringSliceVar(&d.Files, "from-file", nil, "Key file can be specified using its file path, in which case file basename will be used as "+what+" key, or optionally with a key and file path, in which case the given key will be used.  Specifying a directory will iterate each named file in the directory whose basename is a valid "+what+" key.")
	cmd.Flags().StringArrayVar(&d.Literals, "from-literal", nil, "Specify a key and literal value to insert in "+what+" (i.e. mykey=somevalue)")
	cmd.Flags().StringSliceVar(&d.EnvFiles, "from-env-file", nil, "Specify the path to a file to read lines of key=val pairs to create a "+what+".")
}

func (d *dataSources) validate() error {
	if len(d.EnvFiles) > 0 && (len(d.Files) > 0 || len(d.Literals) > 0) {
		return fmt.Errorf("from-env-file cannot be combined with from-file or from-literal")
	}
	return nil
}

func newCreateConfigMapCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var g generatorFlags
	var src dataSources
	cmd := &cobra.Command{
		Use:     "configmap NAME [--from-file=[key=]source] [--from-literal=key1=value1] [--dry-run=server|client|none]",
		Aliases: []string{"cm"},
		Short:   "Create a config map from a local file, directory or literal value",
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := exactlyOneName(cmd, args)
			if err != nil {
				return err
			}
			mode, err := g.complete(streams.ErrOut)
			if err != nil {
				return err
			}
			if err := src.validate(); err != nil {
				return err
			}
			return runGenerator(cmd.Context(), f, streams, &g, mode, func(ns string) (generated, error) {
				cm, err := newConfigMapObject(name, ns, src)
				return generated{obj: cm, gvk: corev1.SchemeGroupVersion.WithKind("ConfigMap"), what: "configmap", sep: ": ",
					post: func(ctx context.Context, cs kubernetes.Interface, ns string, opts metav1.CreateOptions) (metav1.Object, error) {
						return cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, opts)
					}}, err
			})
		},
	}
	g.add(cmd)
	src.add(cmd, "configmap")
	return cmd
}

// newConfigMapObject builds the ConfigMap kubectl sends: files first, then
// literals, then env files; text goes to data, anything not UTF-8 to
// binaryData.
func newConfigMapObject(name, ns string, src dataSources) (*corev1.ConfigMap, error) {
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Data:       map[string]string{},
		BinaryData: map[string][]byte{},
	}
	for _, s := range src.Files {
		entries, err := readFileSource(s)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if err := addConfigMapKey(cm, e.Key, e.Data); err != nil {
				return nil, err
			}
		}
	}
	for _, s := range src.Literals {
		k, v, err := parseLiteralSource(s)
		if err != nil {
			return nil, err
		}
		if err := addConfigMapKey(cm, k, []byte(v)); err != nil {
			return nil, err
		}
	}
	for _, s := range src.EnvFiles {
		err := readEnvFile(s, "config", func(k, v string) error { return addConfigMapKey(cm, k, []byte(v)) })
		if err != nil {
			return nil, err
		}
	}
	return cm, nil
}

// addConfigMapKey adds one key, refusing invalid and repeated keys in
// kubectl's words.
func addConfigMapKey(cm *corev1.ConfigMap, key string, data []byte) error {
	if errs := validation.IsConfigMapKey(key); len(errs) > 0 {
		return fmt.Errorf("%q is not a valid key name for a ConfigMap: %s", key, strings.Join(errs, ","))
	}
	if _, ok := cm.Data[key]; ok {
		return fmt.Errorf("cannot add key %q, another key by that name already exists in Data for ConfigMap %q", key, cm.Name)
	}
	if _, ok := cm.BinaryData[key]; ok {
		return fmt.Errorf("cannot add key %q, another key by that name already exists in BinaryData for ConfigMap %q", key, cm.Name)
	}
	if utf8.Valid(data) {
		cm.Data[key] = string(data)
	} else {
		cm.BinaryData[key] = data
	}
	return nil
}
