// Package kubeconfig turns what a kubectl user has — kubeconfig files, the
// KUBECONFIG variable, command-line overrides, or a pod's service account — into
// a ClientConfig for podwatch's REST client.
//
// Loading follows kubectl: an explicit file (--kubeconfig) is the only one read
// and must exist; otherwise the files named by KUBECONFIG (or ~/.kube/config)
// are read in order, missing ones skipped, and merged so that the first file to
// define a cluster, user or context name, and the first to set current-context,
// wins. Relative paths in a file are resolved against that file's folder.
//
// Users may authenticate with a token, a token file (re-read as it rotates),
// a client certificate, basic auth or an exec credential plugin
// (client.authentication.k8s.io/v1 or v1beta1). The plugin is run lazily, on the
// first request or TLS handshake that needs a credential, cached until the
// expiry it reports, and run again when that passes or when the server answers
// 401. The removed auth-provider mechanism is refused with an AuthProviderError.
//
// Credentials never appear in errors or in the String output of any type here:
// tokens, passwords, private keys and exec environment values are redacted, and
// a plugin's standard output (which holds credentials) is never shown; its
// standard error goes to the user.
//
// (*ClientConfig).RESTConfig converts the result for rest.NewClient.
//
// Errors a caller may branch on are typed: *FileError (a file could not be read
// or parsed), *NotFoundError (a context, cluster or user name that nothing
// defines), *AuthProviderError, *ConfigError (a setting that cannot work),
// *ExecError (a plugin run that failed), and the sentinels ErrEmptyConfig and
// ErrNotInCluster.
package kubeconfig
