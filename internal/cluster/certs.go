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
	caFile      string
	ca          signer
	certFile    string
	keyFile     string
	saKeyFile   string
	tokenFile   string
	adminToken  string
	nodeToken   string
	noRBACToken string
}

func writeCredentials(dir string) (*credentials, error) {
	ca, err := makeCA()
	if err != nil {
		return nil, fmt.Errorf("cluster: make CA: %w", err)
	}
	certPEM, keyPEM, err := ca.sign(servingTemplate())
	if err != nil {
		return nil, fmt.Errorf("cluster: make serving certificate: %w", err)
	}
	caPEM := ca.certPEM()
	saPEM, err := makeRSAKey()
	if err != nil {
		return nil, fmt.Errorf("cluster: make service account key: %w", err)
	}
	c := &credentials{
		caPEM:     caPEM,
		caFile:    filepath.Join(dir, "ca.crt"),
		ca:        ca,
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
		{c.caFile, caPEM},
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

// signer is the cluster's throwaway CA. It signs the apiserver's serving
// certificate, for 127.0.0.1 and localhost, so tests verify the server's TLS
// for real instead of skipping verification, and the client certificates of
// ClientCertificate, which the apiserver trusts (--client-ca-file).
type signer struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func makeCA() (signer, error) {
	now := time.Now()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return signer{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "podwatch test CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return signer{}, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return signer{}, err
	}
	return signer{cert: cert, key: key}, nil
}

func (s signer) certPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.cert.Raw})
}

func servingTemplate() *x509.Certificate {
	now := time.Now()
	return &x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:   now.Add(-time.Hour),
		NotAfter:    now.Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
}

// sign makes a new key and a certificate for it from tmpl, with a random
// serial number, and returns both as PEM.
func (s signer) sign(tmpl *x509.Certificate) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	if tmpl.SerialNumber, err = rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127)); err != nil {
		return nil, nil, err
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, s.cert, &key.PublicKey, s.key)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
		nil
}

// ClientCertificate returns a new PEM client certificate and its key, signed
// by the cluster's CA, which the apiserver authenticates as user (the
// certificate's common name) in groups (its organizations). It is valid
// from an hour ago until notAfter.
func (c *Cluster) ClientCertificate(user string, groups []string, notAfter time.Time) (certPEM, keyPEM []byte, err error) {
	certPEM, keyPEM, err = c.creds.ca.sign(&x509.Certificate{
		Subject:     pkix.Name{CommonName: user, Organization: groups},
		NotBefore:   time.Now().Add(-time.Hour),
		NotAfter:    notAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: make client certificate for %s: %w", user, err)
	}
	return certPEM, keyPEM, nil
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
