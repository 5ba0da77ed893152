package kubeconfig_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/podwatch/podwatch/internal/kubeconfig"
)

// Two kubeconfig files merged as KUBECONFIG=first.yaml:second.yaml would be,
// then the context from --context.
func Example() {
	rules := kubeconfig.Rules{Precedence: []string{"testdata/merge/first.yaml", "testdata/merge/second.yaml"}}
	cc, err := kubeconfig.New(rules, kubeconfig.Options{Context: "second"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cc.Host, cc.Namespace, cc.User)
	// Output: https://only-second.example:6443 second-ns only-second
}

// Printing a ClientConfig never shows its credentials.
func ExampleClientConfig_String() {
	cfg, err := kubeconfig.LoadFile("testdata/auth.yaml")
	if err != nil {
		log.Fatal(err)
	}
	cc, err := cfg.ClientConfig(kubeconfig.Options{Context: "basic"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cc.Password != "", cc)
	// Output:
	// true {Host:https://secure.example:6443 TLS:{CAFile: CAData:[599 bytes] CertFile: KeyFile: CertData:[] KeyData:[] ServerName:api.secure.example Insecure:false ClientCertificateHook:false} BearerToken:"" BearerTokenFile: Username:"admin" Password:[redacted] Impersonate:{UserName: UID: Groups:[] Extra:map[]} UserAgent:"" Timeout:0s Namespace:default Context:"basic" Cluster:"secure" User:"basic"}
}

// A pod's service account, from a folder laid out as the kubelet mounts it.
func ExampleInCluster() {
	dir, err := os.MkdirTemp("", "serviceaccount")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for name, content := range map[string]string{"token": "a-token", "ca.crt": "a CA", "namespace": "monitoring"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			log.Fatal(err)
		}
	}
	env := map[string]string{"KUBERNETES_SERVICE_HOST": "fd00::1", "KUBERNETES_SERVICE_PORT": "443"}
	cfg, err := kubeconfig.InCluster(kubeconfig.InClusterOptions{Dir: dir, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		log.Fatal(err)
	}
	cc, err := cfg.ClientConfig(kubeconfig.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cc.Host, cc.Namespace, filepath.Base(cc.BearerTokenFile))
	// Output: https://[fd00::1]:443 monitoring token
}
