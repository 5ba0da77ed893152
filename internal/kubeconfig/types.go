package kubeconfig

import "encoding/json"

// Config is the merged content of one or more kubeconfig files. Maps are keyed
// by name; every entry records the file that defined it in Origin, and its
// relative paths are already resolved against that file's folder. A Config is
// not changed by ClientConfig and may be shared.
type Config struct {
	CurrentContext string
	Clusters       map[string]*Cluster
	Users          map[string]*User
	Contexts       map[string]*Context
	// Files are the files that were read, in precedence order.
	Files []string
}

// Cluster is a kubeconfig cluster entry.
type Cluster struct {
	Server                   string           `json:"server,omitempty"`
	TLSServerName            string           `json:"tls-server-name,omitempty"`
	InsecureSkipTLSVerify    bool             `json:"insecure-skip-tls-verify,omitempty"`
	CertificateAuthority     string           `json:"certificate-authority,omitempty"`
	CertificateAuthorityData []byte           `json:"certificate-authority-data,omitempty"`
	ProxyURL                 string           `json:"proxy-url,omitempty"`
	DisableCompression       bool             `json:"disable-compression,omitempty"`
	Extensions               []NamedExtension `json:"extensions,omitempty"`
	// Origin is the kubeconfig file that defined the cluster.
	Origin string `json:"-"`
}

// NamedExtension is an entry of a cluster's extensions list. The one named
// "client.authentication.k8s.io/exec" is handed to exec plugins as
// spec.cluster.config.
type NamedExtension struct {
	Name      string          `json:"name"`
	Extension json.RawMessage `json:"extension,omitempty"`
}

// User is a kubeconfig user (an "AuthInfo" in kubectl's terms). Its String
// method redacts every credential.
type User struct {
	ClientCertificate     string              `json:"client-certificate,omitempty"`
	ClientCertificateData []byte              `json:"client-certificate-data,omitempty"`
	ClientKey             string              `json:"client-key,omitempty"`
	ClientKeyData         []byte              `json:"client-key-data,omitempty"`
	Token                 string              `json:"token,omitempty"`
	TokenFile             string              `json:"tokenFile,omitempty"`
	Impersonate           string              `json:"as,omitempty"`
	ImpersonateUID        string              `json:"as-uid,omitempty"`
	ImpersonateGroups     []string            `json:"as-groups,omitempty"`
	ImpersonateUserExtra  map[string][]string `json:"as-user-extra,omitempty"`
	Username              string              `json:"username,omitempty"`
	Password              string              `json:"password,omitempty"`
	// AuthProvider is kept only to refuse it with a helpful error.
	AuthProvider *AuthProvider `json:"auth-provider,omitempty"`
	Exec         *ExecConfig   `json:"exec,omitempty"`
	// Origin is the kubeconfig file that defined the user.
	Origin string `json:"-"`
}

// AuthProvider is the removed auth-provider section; only its name is read.
type AuthProvider struct {
	Name string `json:"name"`
}

// ExecConfig configures an exec credential plugin.
type ExecConfig struct {
	// Command is run as given when it has no path separator (looked up in
	// PATH); otherwise it was resolved against the kubeconfig's folder.
	Command            string       `json:"command"`
	Args               []string     `json:"args,omitempty"`
	Env                []ExecEnvVar `json:"env,omitempty"`
	APIVersion         string       `json:"apiVersion"`
	InstallHint        string       `json:"installHint,omitempty"`
	ProvideClusterInfo bool         `json:"provideClusterInfo,omitempty"`
	// InteractiveMode is Never, IfAvailable or Always. Empty means
	// IfAvailable for v1beta1; v1 requires it.
	InteractiveMode string `json:"interactiveMode,omitempty"`
}

// ExecEnvVar is an environment variable added to the plugin's environment.
// Its value may be a secret and is redacted by String.
type ExecEnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Context is a kubeconfig context: a cluster, a user and a default namespace.
type Context struct {
	Cluster   string `json:"cluster"`
	User      string `json:"user"`
	Namespace string `json:"namespace,omitempty"`
	// Origin is the kubeconfig file that defined the context.
	Origin string `json:"-"`
}

// Interactive modes of an exec plugin.
const (
	InteractiveNever       = "Never"
	InteractiveIfAvailable = "IfAvailable"
	InteractiveAlways      = "Always"
)

// Exec credential API versions podwatch speaks.
const (
	ExecAPIv1      = "client.authentication.k8s.io/v1"
	ExecAPIv1beta1 = "client.authentication.k8s.io/v1beta1"
)

// execClusterExtension names the cluster extension passed to plugins.
const execClusterExtension = "client.authentication.k8s.io/exec"

// fileConfig is the on-disk layout of one kubeconfig file.
type fileConfig struct {
	APIVersion     string         `json:"apiVersion"`
	Kind           string         `json:"kind"`
	CurrentContext string         `json:"current-context"`
	Clusters       []namedCluster `json:"clusters"`
	Users          []namedUser    `json:"users"`
	Contexts       []namedContext `json:"contexts"`
}

type namedCluster struct {
	Name    string  `json:"name"`
	Cluster Cluster `json:"cluster"`
}

type namedUser struct {
	Name string `json:"name"`
	User User   `json:"user"`
}

type namedContext struct {
	Name    string  `json:"name"`
	Context Context `json:"context"`
}

func (c *Config) empty() bool {
	return c.CurrentContext == "" && len(c.Clusters) == 0 && len(c.Users) == 0 && len(c.Contexts) == 0
}
