package cli

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
)

func newCreateSecretCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "secret (docker-registry | generic | tls)",
		Short: "Create a secret using a specified subcommand",
		RunE:  groupRun,
	}
	cmd.AddCommand(newCreateSecretGenericCmd(f, streams), newCreateSecretTLSCmd(f, streams), newCreateSecretDockerCmd(f, streams))
	return cmd
}

// secretGenerator runs a create secret subcommand once its flags are read:
// build makes the Secret from the namespace it should carry.
func secretGenerator(cmd *cobra.Command, f *Factory, streams genericiooptions.IOStreams, g *generatorFlags, mode dryRunMode, build func(ns string) (*corev1.Secret, error)) error {
	return runGenerator(cmd.Context(), f, streams, g, mode, func(ns string) (generated, error) {
		s, err := build(ns)
		return generated{obj: s, gvk: corev1.SchemeGroupVersion.WithKind("Secret"), what: "secret", sep: " ",
			post: func(ctx context.Context, cs kubernetes.Interface, ns string, opts metav1.CreateOptions) (metav1.Object, error) {
				return cs.CoreV1().Secrets(ns).Create(ctx, s, opts)
			}}, err
	})
}

func newSecretObject(name, ns string, typ corev1.SecretType) *corev1.Secret {
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Type:       typ,
		Data:       map[string][]byte{},
	}
}

func newCreateSecretGenericCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var g generatorFlags
	var src dataSources
	var typ string
	cmd := &cobra.Command{
		Use:   "generic NAME [--type=string] [--from-file=[key=]source] [--from-literal=key1=value1] [--dry-run=server|client|none]",
		Short: "Create a secret from a local file, directory, or literal value",
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
			return secretGenerator(cmd, f, streams, &g, mode, func(ns string) (*corev1.Secret, error) {
				return newGenericSecret(name, ns, corev1.SecretType(typ), src)
			})
		},
	}
	g.add(cmd)
	src.add(cmd, "secret")
	cmd.Flags().StringVar(&typ, "type", "", "The type of secret to create")
	return cmd
}

// newGenericSecret builds the Secret kubectl sends: literals first, then
// files, then env files.
func newGenericSecret(name, ns string, typ corev1.SecretType, src dataSources) (*corev1.Secret, error) {
	s := newSecretObject(name, ns, typ)
	for _, l := range src.Literals {
		k, v, err := parseLiteralSource(l)
		if err != nil {
			return nil, err
		}
		if err := addSecretKey(s, k, []byte(v)); err != nil {
			return nil, err
		}
	}
	if err := addSecretFiles(s, src.Files); err != nil {
		return nil, err
	}
	for _, e := range src.EnvFiles {
		err := readEnvFile(e, "secret", func(k, v string) error { return addSecretKey(s, k, []byte(v)) })
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

func addSecretFiles(s *corev1.Secret, sources []string) error {
	for _, src := range sources {
		entries, err := readFileSource(src)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if err := addSecretKey(s, e.Key, e.Data); err != nil {
				return err
			}
		}
	}
	return nil
}

// addSecretKey adds one key, refusing invalid and repeated keys in
// kubectl's words (which differ from the ConfigMap ones).
func addSecretKey(s *corev1.Secret, key string, data []byte) error {
	if errs := validation.IsConfigMapKey(key); len(errs) != 0 {
		return fmt.Errorf("%q is not valid key name for a Secret %s", key, strings.Join(errs, ";"))
	}
	if _, ok := s.Data[key]; ok {
		return fmt.Errorf("cannot add key %s, another key by that name already exists", key)
	}
	s.Data[key] = data
	return nil
}

func newCreateSecretTLSCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var g generatorFlags
	var certFile, keyFile string
	cmd := &cobra.Command{
		Use:   "tls NAME --cert=path/to/cert/file --key=path/to/key/file [--dry-run=server|client|none]",
		Short: "Create a TLS secret",
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := exactlyOneName(cmd, args)
			if err != nil {
				return err
			}
			mode, err := g.complete(streams.ErrOut)
			if err != nil {
				return err
			}
			if certFile == "" || keyFile == "" {
				return fmt.Errorf("key and cert must be specified")
			}
			return secretGenerator(cmd, f, streams, &g, mode, func(ns string) (*corev1.Secret, error) {
				return newTLSSecret(name, ns, certFile, keyFile)
			})
		},
	}
	g.add(cmd)
	cmd.Flags().StringVar(&certFile, "cert", "", "Path to PEM encoded public key certificate.")
	cmd.Flags().StringVar(&keyFile, "key", "", "Path to private key associated with given certificate.")
	return cmd
}

// newTLSSecret reads a certificate and its key, and checks that they form
// a pair before sending them.
func newTLSSecret(name, ns, certFile, keyFile string) (*corev1.Secret, error) {
	read := func(p string) ([]byte, error) {
		b, err := os.ReadFile(p)
		if err != nil {
			//lint:ignore ST1005 kubectl's exact wording
			return nil, fmt.Errorf("Cannot read file %v, %v", p, err)
		}
		return b, nil
	}
	cert, err := read(certFile)
	if err != nil {
		return nil, err
	}
	key, err := read(keyFile)
	if err != nil {
		return nil, err
	}
	if _, err := tls.X509KeyPair(cert, key); err != nil {
		return nil, err
	}
	s := newSecretObject(name, ns, corev1.SecretTypeTLS)
	s.Data[corev1.TLSCertKey] = cert
	s.Data[corev1.TLSPrivateKeyKey] = key
	return s, nil
}

// dockerRegistry are the --docker-* flags of create secret docker-registry.
type dockerRegistry struct {
	Username, Password, Email, Server string
}

func newCreateSecretDockerCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var g generatorFlags
	var reg dockerRegistry
	var files []string
	cmd := &cobra.Command{
		Use:   "docker-registry NAME --docker-username=user --docker-password=password --docker-email=email [--docker-server=string] [--from-file=[key=]source] [--dry-run=server|client|none]",
		Short: "Create a secret for use with a Docker registry",
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := exactlyOneName(cmd, args)
			if err != nil {
				return err
			}
			mode, err := g.complete(streams.ErrOut)
			if err != nil {
				return err
			}
			if len(files) == 0 && (reg.Username == "" || reg.Password == "" || reg.Server == "") {
				return fmt.Errorf("either --from-file or the combination of --docker-username, --docker-password and --docker-server is required")
			}
			return secretGenerator(cmd, f, streams, &g, mode, func(ns string) (*corev1.Secret, error) {
				return newDockerSecret(name, ns, reg, files)
			})
		},
	}
	g.add(cmd)
	cmd.Flags().StringVar(&reg.Username, "docker-username", "", "Username for Docker registry authentication")
	cmd.Flags().StringVar(&reg.Password, "docker-password", "", "Password for Docker registry authentication")
	cmd.Flags().StringVar(&reg.Email, "docker-email", "", "Email for Docker registry")
	cmd.Flags().StringVar(&reg.Server, "docker-server", "https://index.docker.io/v1/", "Server location for Docker registry")
	cmd.Flags().StringSliceVar(&files, "from-file", nil, "Key files can be specified using their file path, in which case a default name of "+corev1.DockerConfigJsonKey+" will be given to them, or optionally with a name and file path, in which case the given name will be used.")
	return cmd
}

// newDockerSecret builds a kubernetes.io/dockerconfigjson Secret from
// files (a file without a key is .dockerconfigjson) or from the registry
// credentials.
func newDockerSecret(name, ns string, reg dockerRegistry, files []string) (*corev1.Secret, error) {
	s := newSecretObject(name, ns, corev1.SecretTypeDockerConfigJson)
	if len(files) > 0 {
		keyed := make([]string, len(files))
		for i, f := range files {
			keyed[i] = f
			if !strings.Contains(f, "=") {
				keyed[i] = corev1.DockerConfigJsonKey + "=" + f
			}
		}
		return s, addSecretFiles(s, keyed)
	}
	content, err := dockerConfigJSON(reg)
	if err != nil {
		return nil, err
	}
	s.Data[corev1.DockerConfigJsonKey] = content
	return s, nil
}

// dockerConfigJSON is the docker CLI's config.json with one registry.
func dockerConfigJSON(reg dockerRegistry) ([]byte, error) {
	type entry struct {
		Username string `json:"username,omitempty"`
		Password string `json:"password,omitempty"`
		Email    string `json:"email,omitempty"`
		Auth     string `json:"auth,omitempty"`
	}
	auth := base64.StdEncoding.EncodeToString([]byte(reg.Username + ":" + reg.Password))
	return json.Marshal(struct {
		Auths map[string]entry `json:"auths"`
	}{Auths: map[string]entry{reg.Server: {reg.Username, reg.Password, reg.Email, auth}}})
}
