package kubeconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
)

// ServiceAccountDir is where the kubelet mounts a pod's service account.
const ServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// InClusterOptions say where a pod's service account is found. The zero value
// is the real pod.
type InClusterOptions struct {
	// Dir holds the token, ca.crt and namespace files; empty means
	// ServiceAccountDir.
	Dir string
	// Getenv reads KUBERNETES_SERVICE_HOST and _PORT; nil means os.Getenv.
	Getenv func(string) string
}

// InCluster describes the pod's service account as a Config with one context,
// "in-cluster", so that Options apply to it as to any kubeconfig. The server is
// https://KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT, the CA is
// Dir/ca.crt, the token is the file Dir/token (re-read by the client as the
// kubelet rotates it), the namespace Dir/namespace when present.
//
// It returns ErrNotInCluster when the variables are unset, and a *FileError
// when the token or CA file cannot be read or the token is empty.
func InCluster(o InClusterOptions) (*Config, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	host, port := getenv("KUBERNETES_SERVICE_HOST"), getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, ErrNotInCluster
	}
	dir := o.Dir
	if dir == "" {
		dir = ServiceAccountDir
	}
	tokenFile := filepath.Join(dir, "token")
	caFile := filepath.Join(dir, "ca.crt")
	token, err := readLimited(tokenFile)
	if err != nil {
		return nil, &FileError{Path: tokenFile, Err: err}
	}
	if len(strings.TrimSpace(string(token))) == 0 {
		return nil, &FileError{Path: tokenFile, Err: errors.New("the service account token is empty")}
	}
	if err := checkReadable(caFile); err != nil {
		return nil, &FileError{Path: caFile, Err: unwrapPathError(err)}
	}
	ns, err := readLimited(filepath.Join(dir, "namespace"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, &FileError{Path: filepath.Join(dir, "namespace"), Err: err}
	}
	const name = "in-cluster"
	origin := fmt.Sprintf("(in-cluster service account %s)", dir)
	return &Config{
		CurrentContext: name,
		Clusters: map[string]*Cluster{name: {
			// JoinHostPort brackets an IPv6 address.
			Server:               "https://" + net.JoinHostPort(host, port),
			CertificateAuthority: caFile,
			Origin:               origin,
		}},
		Users:    map[string]*User{name: {TokenFile: tokenFile, Origin: origin}},
		Contexts: map[string]*Context{name: {Cluster: name, User: name, Namespace: strings.TrimSpace(string(ns)), Origin: origin}},
		Files:    []string{origin},
	}, nil
}
