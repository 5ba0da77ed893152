package rest

import (
	"crypto/tls"
	"fmt"
	"os"
	"sync"
)

// certFiles presents a client certificate read from a pair of files, and
// reads them again at a handshake when either has changed since, so a
// certificate rotated on disk (a kubelet's, renewed before it expires) is
// used by every connection made after the rotation. Connections made
// before keep the certificate they were opened with.
//
// The check is one stat of each file per TLS handshake: negligible beside
// the handshake itself, and so bounded by how often connections are made.
type certFiles struct {
	certFile, keyFile string

	mu        sync.Mutex
	cert      *tls.Certificate
	certStamp fileStamp
	keyStamp  fileStamp
}

// newCertFiles reads the pair once, failing on files that cannot be read or
// that do not hold a matching certificate and key.
func newCertFiles(certFile, keyFile string) (*certFiles, error) {
	f := &certFiles{certFile: certFile, keyFile: keyFile}
	if err := f.reload(); err != nil {
		return nil, err
	}
	return f, nil
}

// GetClientCertificate is the tls.Config hook. A rotation caught halfway
// (a new certificate beside the old key), or a file briefly missing, keeps
// the last good pair and is looked at again at the next handshake: the old
// pair may still be accepted, while failing the handshake never helps.
func (f *certFiles) GetClientCertificate(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.changed() {
		_ = f.reload() // on error the last good pair stays; see above
	}
	return f.cert, nil
}

// changed reports whether either file differs from the one last loaded.
func (f *certFiles) changed() bool {
	return f.certStamp.changed(f.certFile) || f.keyStamp.changed(f.keyFile)
}

// reload reads both files and, when they hold a valid pair, makes it current.
// The stamps are taken before the reads, so a change racing with them is
// seen at the next check rather than lost.
func (f *certFiles) reload() error {
	certStamp, err := stampOf(f.certFile)
	if err != nil {
		return fmt.Errorf("rest: TLS: client certificate file: %w", err)
	}
	keyStamp, err := stampOf(f.keyFile)
	if err != nil {
		return fmt.Errorf("rest: TLS: client key file: %w", err)
	}
	cert, err := tls.LoadX509KeyPair(f.certFile, f.keyFile)
	if err != nil {
		return fmt.Errorf("rest: TLS: client certificate file %s with key file %s: %w", f.certFile, f.keyFile, err)
	}
	f.cert, f.certStamp, f.keyStamp = &cert, certStamp, keyStamp
	return nil
}

// fileStamp identifies one version of a file without reading it: a file
// replaced (renamed over, or a symlink moved to a new target) is another
// file; one rewritten in place has another size or modification time.
type fileStamp struct {
	fi os.FileInfo
}

func stampOf(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{fi: fi}, nil
}

// changed reports whether path is no longer the version s was taken of; a
// file that cannot be stat'ed counts as changed.
func (s fileStamp) changed(path string) bool {
	fi, err := os.Stat(path)
	if err != nil || s.fi == nil {
		return true
	}
	return !os.SameFile(s.fi, fi) || fi.Size() != s.fi.Size() || !fi.ModTime().Equal(s.fi.ModTime())
}
