package kubeconfig

import (
	"encoding/json"
	"time"
)

// execCredential is the ExecCredential object of client.authentication.k8s.io
// v1 and v1beta1, which have the same shape: written to the plugin in
// KUBERNETES_EXEC_INFO (spec) and read from its standard output (status).
type execCredential struct {
	APIVersion string      `json:"apiVersion"`
	Kind       string      `json:"kind"`
	Spec       execSpec    `json:"spec"`
	Status     *execStatus `json:"status,omitempty"`
}

type execSpec struct {
	Cluster     *execCluster `json:"cluster,omitempty"`
	Interactive bool         `json:"interactive"`
}

// execCluster is spec.cluster, sent when the user sets provideClusterInfo.
type execCluster struct {
	Server                   string          `json:"server"`
	TLSServerName            string          `json:"tls-server-name,omitempty"`
	InsecureSkipTLSVerify    bool            `json:"insecure-skip-tls-verify,omitempty"`
	CertificateAuthorityData []byte          `json:"certificate-authority-data,omitempty"`
	ProxyURL                 string          `json:"proxy-url,omitempty"`
	DisableCompression       bool            `json:"disable-compression,omitempty"`
	Config                   json.RawMessage `json:"config,omitempty"`
}

type execStatus struct {
	ExpirationTimestamp   *time.Time `json:"expirationTimestamp,omitempty"`
	Token                 string     `json:"token,omitempty"`
	ClientCertificateData string     `json:"clientCertificateData,omitempty"`
	ClientKeyData         string     `json:"clientKeyData,omitempty"`
}

// execClusterInfo is what a plugin with provideClusterInfo is told about the
// cluster: nil without it. A CA file is read, since the plugin gets data.
func execClusterInfo(cc *ClientConfig, cl *Cluster, provide bool) (*execCluster, error) {
	if !provide {
		return nil, nil
	}
	info := &execCluster{
		Server:                   cc.Host,
		TLSServerName:            cl.TLSServerName,
		InsecureSkipTLSVerify:    cl.InsecureSkipTLSVerify,
		CertificateAuthorityData: cl.CertificateAuthorityData,
		ProxyURL:                 cl.ProxyURL,
		DisableCompression:       cl.DisableCompression,
	}
	if cl.CertificateAuthority != "" {
		data, err := readLimited(cl.CertificateAuthority)
		if err != nil {
			return nil, err
		}
		info.CertificateAuthorityData = data
	}
	for _, x := range cl.Extensions {
		if x.Name == execClusterExtension {
			info.Config = x.Extension
		}
	}
	return info, nil
}
