package cluster

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Users the static token file defines. NodeUser is bound by RBAC to get,
// list and watch pods only; NoRBACUser has no binding at all.
const (
	AdminUser  = "podwatch-admin"
	NodeUser   = "node-a-watcher"
	NoRBACUser = "no-rbac-user"
)

// credentials are the files the apiserver reads, written once per cluster
// and reused across apiserver restarts so tokens and the CA stay valid.
type credentials struct {
	caPEM       []byte
	certFile    string
	keyFile     string
	saKeyFile   string
	tokenFile   string
	adminToken  string
	nodeToken   string
	noRBACToken string
}

func writeCredentials(dir string) (*credentials, error) {
	caPEM, certPEM, keyPEM, err := makeServingCert()
	if err != nil {
		return nil, fmt.Errorf("cluster: make certificates: %w", err)
	}
	saPEM, err := makeRSAKey()
	if err != nil {
		return nil, fmt.Errorf("cluster: make service account key: %w", err)
	}
	c := &credentials{
		caPEM:     caPEM,
		certFile:  filepath.Join(dir, "serving.crt"),
		keyFile:   filepath.Join(dir, "serving.key"),
		saKeyFile: filepath.Join(dir, "sa.key"),
		tokenFile: filepath.Join(dir, "tokens.csv"),
	}
	for _, tok := range []*string{&c.adminToken, &c.nodeToken, &c.noRBACToken} {
		if *tok, err = randomToken(); err != nil {
			return nil, fmt.Errorf("cluster: make token: %w", err)
		}
	}
	// Token file lines: token,user,uid[,"group1,group2"].
	tokens := strings.Join([]string{
		fmt.Sprintf("%s,%s,uid-admin,\"system:masters\"", c.adminToken, AdminUser),
		fmt.Sprintf("%s,%s,uid-node-a", c.nodeToken, NodeUser),
		fmt.Sprintf("%s,%s,uid-no-rbac", c.noRBACToken, NoRBACUser),
	}, "\n") + "\n"
	files := []struct {
		path string
		data []byte
	}{
		{filepath.Join(dir, "ca.crt"), caPEM},
		{c.certFile, certPEM},
		{c.keyFile, keyPEM},
		{c.saKeyFile, saPEM},
		{c.tokenFile, []byte(tokens)},
	}
	for _, f := range files {
		if err := os.WriteFile(f.path, f.data, 0o600); err != nil {
			return nil, fmt.Errorf("cluster: write credentials: %w", err)
		}
	}
	return c, nil
}

// makeServingCert makes a throwaway CA and a serving certificate it signs
// for 127.0.0.1 and localhost, so tests verify the server's TLS for real
// instead of skipping verification.
func makeServingCert() (caPEM, certPEM, keyPEM []byte, err error) {
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "podwatch test CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, nil, nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
		nil
}

// makeRSAKey makes the key the apiserver signs service account tokens with;
// the same file serves as the public key that verifies them.
func makeRSAKey() ([]byte, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), nil
}

func randomToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
